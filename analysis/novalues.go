package analysis

import "errors"

// ErrNoValues is what makes a plot with nothing to draw (every value of
// its metric failed or is undefined): a caller (display.Plot) says so in
// place of an empty chart. reports.Set's plots wrap it with the counts.
var ErrNoValues = errors.New("nothing to plot")
