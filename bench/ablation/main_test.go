package ablation_test

import (
	"testing"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }
