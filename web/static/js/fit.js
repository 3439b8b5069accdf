// Fitting a name to its cell on a TV, to be read whole from across the
// house and never cut.

// fitName fits the name text, an inline element in cell whose font size
// is scaled by its --fit, to the cell: a name too long shrinks, as far
// as a third smaller, on one line; one still too long wraps (the cell
// takes the class "wrap") onto at most lines lines, between its words
// where it has them (Korean keeps its words whole: tv.css), shrinking
// further until it fits the cell's width and the height the cell had.
// It reads layout sizes only, not drawn ones, so that a panel that is
// arriving, scaled, fits its names as it will stand.
export function fitName(cell, text, lines = 2) {
  cell.classList.remove("wrap");
  text.style.removeProperty("--fit");
  const style = getComputedStyle(cell);
  const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const high = cell.clientHeight;
  const need = text.offsetWidth;
  if (room <= 0 || need <= room) return;
  const fits = (most) => cell.scrollWidth <= cell.clientWidth && cell.clientHeight <= high &&
    new Set([...text.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size <= most;
  if (need * 2 <= room * 3) {
    text.style.setProperty("--fit", String(room / need));
    if (fits(1)) return;
  }
  if (lines > 1) cell.classList.add("wrap");
  for (let fit = lines > 1 ? 1 : room / need; fit > 0.1; fit *= 0.94) {
    text.style.setProperty("--fit", String(fit));
    if (fits(lines)) return;
  }
}
