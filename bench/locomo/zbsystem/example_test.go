package zbsystem_test

import (
	"fmt"

	"github.com/zenbrain/zb/bench/locomo/zbsystem"
)

// SessionID gives every LoCoMo session of a tenant a stable UUID, so a repeated run stores the
// turns of a session under the same session id.
func ExampleSessionID() {
	a := zbsystem.SessionID("conv-26", "session_1")
	b := zbsystem.SessionID("conv-26", "session_1")
	c := zbsystem.SessionID("conv-26", "session_2")
	fmt.Println(a == b, a == c, a.Version())
	// Output: true false VERSION_5
}
