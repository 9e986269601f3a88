package simstat

// Mulberry32 is the 32-bit pseudo-random generator used by the ZenBrain experiment
// harnesses. Reusing it lets zenbrain replay the paper's seeds (42, 123, 456, 789,
// 1024, 2048, 3072, 4096, 5120, 6144) with the same random streams.
//
// The zero value is a valid generator seeded with 0. Mulberry32 is not safe for
// concurrent use; give each goroutine its own.
type Mulberry32 struct {
	state uint32
}

// NewMulberry32 returns a generator seeded with seed.
func NewMulberry32(seed uint32) *Mulberry32 {
	return &Mulberry32{state: seed}
}

// Uint32 returns the next 32-bit value of the stream.
func (m *Mulberry32) Uint32() uint32 {
	m.state += 0x6D2B79F5
	t := m.state
	t = (t ^ (t >> 15)) * (t | 1)
	t ^= t + (t^(t>>7))*(t|61)
	return t ^ (t >> 14)
}

// Float64 returns a value in [0, 1), the same value the reference
// implementation's `((t ^ t >>> 14) >>> 0) / 4294967296` produces.
func (m *Mulberry32) Float64() float64 {
	return float64(m.Uint32()) / 4294967296.0
}

// Intn returns a value in [0, n). It panics if n <= 0, like math/rand.
func (m *Mulberry32) Intn(n int) int {
	if n <= 0 {
		panic("simstat: Intn called with n <= 0")
	}
	return int(m.Float64() * float64(n))
}

// Seeds are the ten seeds of the paper's experiment harnesses.
var Seeds = []uint32{42, 123, 456, 789, 1024, 2048, 3072, 4096, 5120, 6144}
