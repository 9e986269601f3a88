package compose_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/compose"
)

func ExampleCompose() {
	req := compose.Request{
		Target:        "work",
		QueryEntities: []string{"anna"},
		Memories: []compose.Memory{
			{ID: "w1", Context: "work", Text: "Anna leads the Q3 launch", Score: 0.9, Entities: []string{"anna"}},
			{ID: "p1", Context: "personal", Text: "Anna is my sister", Score: 0.8, Entities: []string{"anna-k"}},
			{ID: "h1", Context: "health", Text: "Anna's diagnosis", Score: 0.99, Entities: []string{"anna-h"}},
		},
		Links: []compose.Link{
			{A: compose.EntityRef{Context: "work", Entity: "anna"}, B: compose.EntityRef{Context: "personal", Entity: "anna-k"}},
			{A: compose.EntityRef{Context: "work", Entity: "anna"}, B: compose.EntityRef{Context: "health", Entity: "anna-h"}},
		},
		Policy: compose.NewPolicy(compose.Grant{Reader: "work", Source: "personal"}),
	}
	c, _ := compose.Compose(req, nil)
	fmt.Print(c.Render())
	fmt.Println("denied:", c.Denied)
	// Output:
	// ## work
	// - Anna leads the Q3 launch
	//
	// ## From personal (shared: anna)
	// - Anna is my sister
	// denied: 1
}
