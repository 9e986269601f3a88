package locomo

import (
	"fmt"
	"slices"
	"strings"
)

// Select returns a dataset of the conversations whose sample_ids are in ids, in the dataset's
// order, with the cleaning report counted over them alone. Repeated ids count once; an id that
// names no conversation gives an error listing the known ones, and so does an empty ids.
func (d *Dataset) Select(ids []string) (*Dataset, error) {
	known := make([]string, len(d.Conversations))
	for i := range d.Conversations {
		known[i] = d.Conversations[i].SampleID
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("error selecting conversations of %s: none given (known: %s)", d.Source, strings.Join(known, ", "))
	}
	var unknown []string
	for _, id := range ids {
		if !slices.Contains(known, id) {
			unknown = append(unknown, fmt.Sprintf("%q", id))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("error selecting conversations of %s: unknown %s (known: %s)",
			d.Source, strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	out := newDataset(d.Source)
	for i := range d.Conversations {
		if slices.Contains(ids, d.Conversations[i].SampleID) {
			out.add(&d.Conversations[i])
		}
	}
	return out, nil
}
