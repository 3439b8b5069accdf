// The game in play, kept on the phone: what a board becomes with a ball
// the lane has not had yet (one entered offline, waiting in the outbox).
// It is the Go scorer's rules (lane/bowling, its DOMAIN.md) again, in
// JavaScript, over the board's own shape: frames and their marks, running
// scores and totals, who is up, the ball and the pins standing. A test
// plays many random games through both and compares them ball by ball
// (TestLocalBoardAgreesWithTheScorer); the server's board always wins
// once it comes.

const numPins = 10;
const numFrames = 10;
const full = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

// spots is each pin's place on the deck: its row from the front and its
// position across, in half pin spacings (negative to the bowler's left).
const spots = [null,
  [0, 0],
  [1, -1], [1, 1],
  [2, -2], [2, 0], [2, 2],
  [3, -3], [3, -1], [3, 1], [3, 3]];

function pinAt(row, x) {
  for (let p = 1; p <= numPins; p++) if (spots[p][0] === row && spots[p][1] === x) return p;
  return 0;
}

// split reports whether the pins standing after a rack's first ball are
// a split (USBC): the head pin down, and a pin down between two standing
// pins, or immediately ahead of two.
export function split(deck) {
  const has = (p) => deck.includes(p);
  if (has(1) || deck.length < 2) return false;
  const between = ([row, x]) => {
    for (const a of deck) {
      for (const b of deck) {
        if (a >= b) continue;
        const [ra, xa] = spots[a];
        const [rb, xb] = spots[b];
        if (Math.min(xa, xb) < x && x < Math.max(xa, xb) && Math.min(ra, rb) <= row && row <= Math.max(ra, rb)) return true;
      }
    }
    return false;
  };
  const ahead = ([row, x]) => {
    const l = pinAt(row + 1, x - 1);
    const r = pinAt(row + 1, x + 1);
    return l !== 0 && r !== 0 && has(l) && has(r);
  };
  for (let p = 1; p <= numPins; p++) {
    if (!has(p) && (between(spots[p]) || ahead(spots[p]))) return true;
  }
  return false;
}

// A game is one player's balls: { pins, deck (the pins left standing, or
// null when not known), foul }.
class Game {
  constructor() {
    this.balls = [];
    this.starts = [0];
    this.frame = 0; // the frame in play, from 0; numFrames once over
    this.down = 0; // pins down on the rack in play
  }

  over() { return this.frame === numFrames; }
  standing() { return this.over() ? 0 : numPins - this.down; }
  currentFrame() { return Math.min(this.frame + 1, numFrames); }
  ball() { return this.over() ? 0 : this.balls.length - this.starts[this.frame] + 1; }

  // rack is the pins standing for the next ball, or null when not known.
  rack() {
    if (this.over()) return [];
    if (this.down === 0) return full.slice();
    const last = this.balls[this.balls.length - 1];
    return last.deck ? last.deck.slice() : null;
  }

  // fault says why the ball cannot be the next, or "".
  fault(b) {
    if (this.over()) return "the game is over";
    if (b.foul && (b.pins !== 0 || b.deck)) return "a foul counts 0 and has no deck";
    if (!Number.isInteger(b.pins) || b.pins < 0 || b.pins > numPins) return "not a count";
    if (b.pins > this.standing()) return "more pins than standing";
    if (b.deck) {
      const before = this.rack();
      if (b.deck.some((p) => !Number.isInteger(p) || p < 1 || p > numPins) || new Set(b.deck).size !== b.deck.length) return "not a deck";
      if (before ? b.deck.some((p) => !before.includes(p)) : b.deck.length > this.standing()) return "a pin down before stands";
      if (b.deck.length !== this.standing() - b.pins) return "the deck and the count disagree";
    }
    return "";
  }

  add(b) {
    this.balls.push({ pins: b.pins, deck: b.deck ? [...b.deck].sort((x, y) => x - y) : null, foul: !!b.foul });
    this.down += b.pins;
    if (this.down === numPins) this.down = 0; // a strike or a spare: the rack is set again
    if (this.frameDone()) {
      this.frame++;
      this.down = 0;
      if (this.frame < numFrames) this.starts[this.frame] = this.balls.length;
    }
  }

  frameDone() {
    const s = this.starts[this.frame];
    const n = this.balls.length - s;
    const r = (i) => this.balls[s + i].pins;
    if (this.frame < numFrames - 1) return n === 2 || r(0) === numPins;
    if (n === 3) return true;
    return n === 2 && r(0) + r(1) < numPins;
  }

  // span is the balls of frame i (from 0): [start, end).
  span(i) {
    const n = this.balls.length;
    if (i > this.frame) return [n, n];
    if (i + 1 <= this.frame && i + 1 < numFrames) return [this.starts[i], this.starts[i + 1]];
    return [this.starts[i], n];
  }

  // value is what frame i is worth, and whether that can no longer change.
  value(i) {
    const [s, e] = this.span(i);
    const r = this.balls.map((b) => b.pins);
    if (i === numFrames - 1) return [r.slice(s, e).reduce((a, b) => a + b, 0), this.over()];
    if (e - s >= 1 && r[s] === numPins) return r.length < s + 3 ? [0, false] : [numPins + r[s + 1] + r[s + 2], true];
    if (e - s < 2) return [0, false];
    if (r[s] + r[s + 1] === numPins) return r.length < s + 3 ? [0, false] : [numPins + r[s + 2], true];
    return [r[s] + r[s + 1], true];
  }

  total() {
    let total = 0;
    for (let i = 0; i < numFrames; i++) {
      const [v, ok] = this.value(i);
      if (!ok) break;
      total += v;
    }
    return total;
  }

  // frames is the game's bowled frames as a board shows them; was is the
  // board's frames before, whose "corrected" marks stay.
  frames(was = []) {
    const out = [];
    let cum = 0;
    let scored = true;
    for (let i = 0; i < numFrames; i++) {
      const [s, e] = this.span(i);
      if (e === s) break;
      const balls = this.balls.slice(s, e);
      const [v, ok] = this.value(i);
      scored = scored && ok;
      if (scored) cum += v;
      const f = { marks: marks(balls), rolls: balls.map((b) => b.pins), score: scored ? cum : null };
      if (was[i] && was[i].corrected) f.corrected = true;
      if (balls[0].deck && split(balls[0].deck)) f.split = true;
      if (balls.some((b) => b.deck)) f.decks = balls.map((b) => b.deck ? b.deck.slice() : null);
      const fouls = balls.map((b, j) => b.foul ? j + 1 : 0).filter((j) => j);
      if (fouls.length) f.fouls = fouls;
      out.push(f);
    }
    return out;
  }
}

// marks writes a frame's balls as the board does: "X", "8|/", "(8)|1",
// "F|/", "X|7|/".
function marks(balls) {
  let fresh = true;
  let standing = numPins;
  return balls.map((b) => {
    const p = b.pins;
    let m;
    if (b.foul) m = "F";
    else if (fresh && p === numPins) m = "X";
    else if (!fresh && p === standing) m = "/";
    else if (p === 0) m = "-";
    else if (fresh && b.deck && split(b.deck)) m = `(${p})`;
    else m = String(p);
    if (fresh && p === numPins) {
      // a strike: a new rack, still fresh
    } else if (!fresh) {
      fresh = true;
      standing = numPins;
    } else {
      fresh = false;
      standing -= p;
    }
    return m;
  }).join("|");
}

// gameOf rebuilds a player's game from the board's frames.
function gameOf(p) {
  const g = new Game();
  for (const f of p.frames) {
    f.rolls.forEach((pins, i) => {
      const deck = f.decks && f.decks[i] ? f.decks[i] : null;
      g.add({ pins, deck, foul: !!(f.fouls && f.fouls.includes(i + 1)) });
    });
  }
  return g;
}

// ballOf reads a roll's fields ({ pins }, { deck } or { foul }) as a
// ball the game up can take, its count from the deck if it gives none.
function ballOf(g, r) {
  if (r.foul) return { pins: r.pins || 0, deck: null, foul: true };
  const deck = Array.isArray(r.deck) ? r.deck.slice() : null;
  const pins = typeof r.pins === "number" ? r.pins : deck ? Math.max(g.standing() - deck.length, 0) : NaN;
  return { pins, deck, foul: false };
}

// applyBall is board b with roll r bowled: r names its player (name),
// frame and ball as a roll does, and its pins, deck or foul. It returns
// null, changing nothing, when r is not the ball up on b or the rules
// refuse it.
export function applyBall(b, r) {
  if (!b || b.phase !== "playing" || !b.up) return null;
  const up = b.players[b.up.seat];
  if (!up || up.name !== r.name || r.frame !== b.up.frame || r.ball !== b.up.ball) return null;
  const games = b.players.map(gameOf);
  const g = games[b.up.seat];
  const ball = ballOf(g, r);
  if (g.fault(ball)) return null;
  const frame = g.currentFrame();
  g.add(ball);
  const players = b.players.map((p, i) => i === b.up.seat ? { ...p, frames: g.frames(p.frames), total: g.total() } : p);
  let seat = b.up.seat;
  if (g.over() || g.currentFrame() !== frame) seat = choose(b.players, games);
  const next = { ...b, players };
  delete next.stats; // the night's numbers are the server's to count
  if (seat < 0) {
    next.phase = "finished";
    next.up = null;
  } else {
    const ng = games[seat];
    next.up = { seat, frame: ng.currentFrame(), ball: ng.ball(), standing: ng.standing() };
    const rack = ng.rack();
    if (rack) next.up.deck = rack;
  }
  return next;
}

// choose is the seat up once a frame is over, or -1 when the game is:
// among the players neither left nor away, the one with the fewest
// frames done, ties to the first seat; the away players only when
// nobody else has balls left.
function choose(players, games) {
  const due = (i, awayToo) => !players[i].left && !games[i].over() && (awayToo || !players[i].away);
  const awayToo = !players.some((_, i) => due(i, false));
  let best = -1;
  let fewest = numFrames + 1;
  players.forEach((_, i) => {
    if (!due(i, awayToo)) return;
    const done = games[i].currentFrame() - 1;
    if (done < fewest) {
      best = i;
      fewest = done;
    }
  });
  return best;
}
