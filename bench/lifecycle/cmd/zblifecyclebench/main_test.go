package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSizes(t *testing.T) {
	ns, err := parseSizes("1000, 10000,100000")
	require.NoError(t, err)
	require.Equal(t, []int{1000, 10000, 100000}, ns)
	for _, bad := range []string{"", "1k", "0", "-5", "10,,20"} {
		_, err := parseSizes(bad)
		require.Error(t, err, bad)
	}
}

func TestRunRejectsBadSizes(t *testing.T) {
	for _, flag := range []string{"-decay-sizes", "-maint-sizes", "-sleep-sizes"} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, run([]string{flag, "10,ten"}, func(string) string { return "" }, &out, &errb))
		require.Contains(t, errb.String(), flag[1:]+`: "ten" is not a positive number`)
	}
}

func TestRunRejectsBadSharedBuffers(t *testing.T) {
	for _, bad := range []string{"", "2G", "1GB'", "lots", "-1MB"} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, run([]string{"-shared-buffers", bad}, func(string) string { return "" }, &out, &errb), bad)
		require.Contains(t, errb.String(), "-shared-buffers must be a size such as 128MB or 2GB", bad)
	}
	require.Regexp(t, sizeRE, "2GB")
	require.Regexp(t, sizeRE, "131072")
}

func TestRunRejectsSmallSleepDerived(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 2, run([]string{"-sleep-derived", "99"}, func(string) string { return "" }, &out, &errb))
	require.Contains(t, errb.String(), "-sleep-derived must be at least 100, got 99")
}
