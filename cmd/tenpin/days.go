package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultKeep is how long tenpin serve keeps a closed lane's night by
// default: a year and a bit, so that last year's league night is there
// to compare with.
const DefaultKeep = 400 * 24 * time.Hour

// days is a flag.Value for a duration that may also be given in days
// ("400d"), which time.ParseDuration does not take, and which is how
// anyone says how long to keep something.
type days time.Duration

func (d *days) String() string {
	v := time.Duration(*d)
	if v != 0 && v%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(v/(24*time.Hour)), 10) + "d"
	}
	return v.String()
}

func (d *days) Set(s string) error {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseUint(n, 10, 32)
		if err != nil || v > 100*366 {
			return fmt.Errorf("%q: want a whole number of days, at most a century, such as 400d", s)
		}
		*d = days(time.Duration(v) * 24 * time.Hour)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q: want a duration such as 400d or 72h, or 0 for ever", s)
	}
	*d = days(v)
	return nil
}
