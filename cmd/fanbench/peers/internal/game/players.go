package game

import "encoding/json"

// players is the players of a board in mid-game, taken from a real tenpin
// board (four players, frame 5): with it a board is the size of tenpin's
// mid-game board, about 1,170 bytes, as tenpin's boards are on average over a
// game (about 450 bytes in frame 1, 1,970 at the end).
var players = json.RawMessage(`[{"name":"AAA","connected":true,"frames":[{"marks":"3|3","rolls":[3,3],"score":6},{"marks":"-|7","rolls":[0,7],"score":13},{"marks":"8|-","rolls":[8,0],"score":21},{"marks":"9|/","rolls":[9,1],"score":39},{"marks":"8|1","rolls":[8,1],"score":48}],"total":48},{"name":"AAB","connected":true,"frames":[{"marks":"2|6","rolls":[2,6],"score":8},{"marks":"9|/","rolls":[9,1],"score":26},{"marks":"8|/","rolls":[8,2],"score":44},{"marks":"8|/","rolls":[8,2],"score":58},{"marks":"4|/","rolls":[4,6],"score":null}],"total":58},{"name":"AAC","connected":true,"frames":[{"marks":"6|3","rolls":[6,3],"score":9},{"marks":"4|/","rolls":[4,6],"score":29},{"marks":"X","rolls":[10],"score":49},{"marks":"2|/","rolls":[2,8],"score":67},{"marks":"8|/","rolls":[8,2],"score":null}],"total":67},{"name":"AAD","connected":true,"frames":[{"marks":"1|8","rolls":[1,8],"score":9},{"marks":"5|/","rolls":[5,5],"score":28},{"marks":"9|/","rolls":[9,1],"score":39},{"marks":"1|6","rolls":[1,6],"score":46},{"marks":"9","rolls":[9],"score":null}],"total":46}]`)
