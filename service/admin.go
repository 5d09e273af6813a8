package service

import "github.com/topupd/topupd"

// adminOps are the permissions of the operations on operators, settings, order reads, reports and the action log.
var adminOps = map[Op]topupd.Permission{}

// adminStore is what the operations on operators, settings, order reads, reports and the action log need of the database.
type adminStore interface{}
