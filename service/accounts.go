package service

import "github.com/topupd/topupd"

// accountOps are the permissions of the operations on accounts, their keys, credits, prices, tiers and chats.
var accountOps = map[Op]topupd.Permission{}

// accountStore is what the operations on accounts, their keys, credits, prices, tiers and chats need of the database.
type accountStore interface{}
