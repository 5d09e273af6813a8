package main

import (
	"fmt"
	"testing"
)

// TestRevokedKeyRefusedOnEveryNode: three nodes on one PostgreSQL schema,
// with Redis (invalidations on pub/sub) and without it (LISTEN/NOTIFY).
// Every node has just admitted the key, so each remembers it in its auth
// cache; once DELETE /admin/keys/{keyId} has answered on one node, the very
// next call with the key is 401 on every node. Five keys, revoked on each
// node in turn.
func TestRevokedKeyRefusedOnEveryNode(t *testing.T) {
	t.Parallel()
	for name, redisURL := range map[string]string{"redis": "", "postgres": noRedis} {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, 3, redisURL)
			acct, _ := c.nodes[0].setup("10")
			for round := range 5 {
				on := c.node(round)
				created := on.must("POST", "/admin/accounts/"+acct+"/keys", nil)
				key, id := created["apiKey"].(string), created["keyId"].(string)
				keepSecret(t, key, fmt.Sprintf("key %d", round))
				for i := range 3 {
					if status, m := clientCall(t, "GET", c.node(i).api+"/balance", key, nil); status != 200 {
						t.Fatalf("round %d: the key on node %d: %d %v", round, i, status, m)
					}
				}
				on.must("DELETE", "/admin/keys/"+id, nil)
				for i := range 3 {
					status, m, _, err := callOnce("GET", c.node(round+1+i).api+"/balance", key, nil)
					if err != nil || status != 401 || m["code"] != "INVALID_API_KEY" {
						t.Errorf("round %d: the revoked key on node %d: %d %v %v, want 401 INVALID_API_KEY", round, (round+1+i)%3, status, m, err)
					}
				}
			}
		})
	}
}
