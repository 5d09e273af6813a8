package console

import (
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// chart is a bar chart drawn as SVG by the template: no script, no style
// attribute (the Content-Security-Policy allows neither inline).
type chart struct {
	Width, Height int
	Bars          []bar
	Max           topupd.Money
}

// bar is one day's bar, placed already.
type bar struct {
	X, Y, W, H int
	Label      string
	Value      topupd.Money
	Tick       bool
}

// revenueChart draws revenue per day.
func revenueChart(days []topupd.SalesRow) chart {
	const width, height, top, bottom = 900, 220, 10, 20
	c := chart{Width: width, Height: height}
	for _, d := range days {
		c.Max = max(c.Max, d.Revenue)
	}
	if len(days) == 0 {
		return c
	}
	step := width / len(days)
	for i, d := range days {
		h := 0
		if c.Max > 0 {
			h = int(int64(d.Revenue) * int64(height-top-bottom) / int64(c.Max))
		}
		c.Bars = append(c.Bars, bar{X: i * step, Y: height - bottom - h, W: step - 2, H: h, Label: d.Key[5:], Value: d.Revenue,
			Tick: i%5 == 0 || i == len(days)-1})
	}
	return c
}

// durText is an upper bound of a time to a final state, in words.
func durText(d time.Duration) string {
	switch {
	case d >= topupd.DurationOverflow:
		return "> 48 h"
	case d < time.Second:
		return "≤ " + strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return "≤ " + strconv.FormatInt(int64(d/time.Second), 10) + " s"
	case d < time.Hour:
		return "≤ " + strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	}
	return "≤ " + strconv.FormatInt(int64(d/time.Hour), 10) + " h"
}

// pctText is part of whole as a percentage with one decimal, or a dash.
func pctText(part, whole int64) string {
	if whole == 0 {
		return "—"
	}
	per := part * 1000 / whole
	return strconv.FormatInt(per/10, 10) + "." + strconv.FormatInt(per%10, 10) + "%"
}
