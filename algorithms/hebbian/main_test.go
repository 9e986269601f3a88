package hebbian

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
