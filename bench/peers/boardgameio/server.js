// boardgame.io's own server (Koa and its Lobby API) with FlatFile storage, serving one
// game: a faith track of up to four players, whose move sets the mover's faith.
//
//     NODE_ENV=production node server.js PORT STORAGE_DIR
//
// Nothing here is tuned: it is the server as its documentation sets it up, so that
// bench/run.py compares the service with what a team would get from boardgame.io.
"use strict";

const { Server, FlatFile } = require("boardgame.io/server");

const [port, dir] = process.argv.slice(2);
if (!port || !dir) {
  console.error("usage: node server.js PORT STORAGE_DIR");
  process.exit(2);
}

const FaithTrack = {
  name: "faith-track",
  minPlayers: 2,
  maxPlayers: 4,
  setup: ({ ctx }) => ({
    faith: Object.fromEntries(ctx.playOrder.map((id) => [id, 0])),
  }),
  moves: {
    // The track runs from 0 to 15; moves reach the server only over its socket.io
    // transport (the Lobby API has no move endpoint).
    setFaith: ({ G, playerID }, faith) => {
      G.faith[playerID] = Math.max(0, Math.min(15, Math.trunc(faith)));
    },
  },
};

const server = Server({
  games: [FaithTrack],
  db: new FlatFile({ dir }),
  // Same origin only: the benchmark's client is not a browser.
  origins: [],
});
server.run(Number(port));
