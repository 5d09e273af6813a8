package console

import (
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// chart is a bar chart drawn as SVG by the template: no script, no style
// attribute (the Content-Security-Policy allows neither inline). It has a
// value axis on the left (Ticks, in dollars), a date axis below, and the
// value of its highest day written over that day's bar.
type chart struct {
	Width, Height int
	// Left is where the plot starts (the value axis's labels are left of
	// it); Base is the y of the zero line.
	Left, Base int
	Bars       []bar
	Ticks      []tick
	Max        topupd.Money
	// Top is the highest bar, whose value is written over it (nil when
	// every day is zero).
	Top *bar
}

// bar is one day's bar, placed already.
type bar struct {
	// TextY is where a value written over the bar sits.
	X, Y, W, H, TextY int
	Label             string
	Value             topupd.Money
	Tick              bool
}

// tick is one line of the value axis: its y, its label's x and y, and
// its amount.
type tick struct {
	Y, TextX, TextY int
	Value           topupd.Money
}

// niceCeil is the smallest amount of the form 1, 2 or 5 times a power of
// ten whole dollars that is at least m (at least $1).
func niceCeil(m topupd.Money) topupd.Money {
	for step := topupd.USD(1); ; step *= 10 {
		for _, k := range []topupd.Money{1, 2, 5} {
			if k*step >= m {
				return k * step
			}
		}
	}
}

// revenueChart draws revenue per day, against an axis from $0 to a round
// amount above the highest day, in four steps.
func revenueChart(days []topupd.SalesRow) chart {
	const width, height, left, top, bottom, steps = 900, 240, 80, 16, 20, 4
	c := chart{Width: width, Height: height, Left: left, Base: height - bottom}
	for _, d := range days {
		c.Max = max(c.Max, d.Revenue)
	}
	scale := niceCeil(max(c.Max, 1))
	if scale%steps != 0 {
		scale = (scale/steps + 1) * steps
	}
	plot := int64(height - top - bottom)
	for i := range steps + 1 {
		v := scale * topupd.Money(i) / steps
		y := c.Base - int(plot*int64(i)/steps)
		c.Ticks = append(c.Ticks, tick{Y: y, TextX: left - 6, TextY: y + 4, Value: v})
	}
	if len(days) == 0 {
		return c
	}
	step := (width - left) / len(days)
	for i, d := range days {
		h := int(int64(d.Revenue) * plot / int64(scale))
		c.Bars = append(c.Bars, bar{X: left + i*step, Y: c.Base - h, TextY: c.Base - h - 4, W: step - 2, H: h, Label: d.Key[5:], Value: d.Revenue,
			Tick: i%5 == 0 || i == len(days)-1})
	}
	for i := range c.Bars {
		if c.Bars[i].Value > 0 && (c.Top == nil || c.Bars[i].Value > c.Top.Value) {
			c.Top = &c.Bars[i]
		}
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

// pctText is part of whole as a percentage with one decimal, rounded half
// up in integers (14 of 17 is 82.4%), or a dash.
func pctText(part, whole int64) string {
	if whole == 0 {
		return "—"
	}
	per := (part*1000*2 + whole) / (2 * whole)
	return strconv.FormatInt(per/10, 10) + "." + strconv.FormatInt(per%10, 10) + "%"
}
