module github.com/topupd/topupd/client

go 1.26.8
