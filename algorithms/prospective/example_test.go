package prospective_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/prospective"
)

func ExampleParse() {
	now := time.Date(2025, 6, 11, 14, 30, 0, 0, time.UTC) // a Wednesday
	for _, s := range []string{
		"Remind me to call mom tomorrow at 9",
		"Erinnere mich morgen an den Zahnarzt",
		"When I talk to Anna, ask about the trip",
	} {
		in, _ := prospective.Parse(s, now)
		switch in.Trigger {
		case prospective.TriggerTime:
			fmt.Printf("%s: %q due %s\n", in.Trigger, in.Content, in.DueAt.Format("Mon 15:04"))
		case prospective.TriggerCue:
			fmt.Printf("%s: %q when %v\n", in.Trigger, in.Content, in.CueEntities)
		}
	}
	// Output:
	// time: "call mom" due Thu 09:00
	// time: "den Zahnarzt" due Thu 09:00
	// cue: "ask about the trip" when [Anna]
}

func ExampleMatchCue() {
	now := time.Date(2025, 6, 11, 14, 30, 0, 0, time.UTC)
	in, _ := prospective.Parse("when I talk to Anna, ask about the trip", now)
	m, _ := prospective.MatchCue(in, "Call with Anna Schmidt about the budget", []string{"Anna Schmidt"}, nil, nil)
	fmt.Println(m.Matched, m.Reason, m.Score, m.Entity)
	fired, _ := prospective.Fire(in, now.Add(time.Hour))
	fmt.Println(fired.Status)
	// Output:
	// true entity 1 Anna Schmidt
	// fired
}
