package ratelimit

import "hash/maphash"

// numShards is the number of independently locked shards of every keyed map.
const numShards = 64

// shardIndex maps key to a shard index in [0, numShards).
func shardIndex(seed maphash.Seed, key string) int {
	return int(maphash.String(seed, key) % numShards)
}
