package service

import "github.com/topupd/topupd"

// catalogOps are the permissions of the operations on the catalog: lines, packs, stock, batches, upstreams and providers.
var catalogOps = map[Op]topupd.Permission{}

// catalogStore is what the operations on the catalog: lines, packs, stock, batches, upstreams and providers need of the database.
type catalogStore interface{}
