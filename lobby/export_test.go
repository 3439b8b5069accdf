package lobby

// QRPNG is qrPNG, for the benchmark of drawing a code.
var QRPNG = qrPNG
