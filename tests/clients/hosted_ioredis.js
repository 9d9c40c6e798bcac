// ioredis against a Redis on 127.0.0.1:PORT (tests/test_hosted_wire.cpp runs
// it against a real redis-server and a simulated node and compares the
// output): its connect handshake (CLIENT SETNAME, the INFO ready check),
// a SET NX PX lock and the compare-and-delete release by EVAL.
// Usage: node hosted_ioredis.js PORT IOREDIS_DIR
const Redis = require(process.argv[3]);

const port = Number(process.argv[2]);
const redis = new Redis({ host: "127.0.0.1", port, connectionName: "hosted-js", maxRetriesPerRequest: 0 });
const unlock = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

async function show(label, thunk) {
  try {
    console.log(label, JSON.stringify(await thunk()));
  } catch (e) {
    console.log(label, "raised", e.name, e.message);
  }
}

redis.on("ready", async () => {
  console.log("ready");
  await show("getname", () => redis.client("GETNAME"));
  await show("set nx px", () => redis.set("lock", "token-1", "PX", 5000, "NX"));
  await show("set nx px again", () => redis.set("lock", "token-2", "PX", 5000, "NX"));
  await show("pttl positive", async () => (await redis.pttl("lock")) > 0);
  await show("release with another token", () => redis.eval(unlock, 1, "lock", "token-2"));
  await show("release", () => redis.eval(unlock, 1, "lock", "token-1"));
  await show("release again", () => redis.eval(unlock, 1, "lock", "token-1"));
  await show("info loading", async () => (await redis.info("persistence")).includes("loading:0"));
  await show("getdel", async () => { await redis.set("k", "v"); return redis.getdel("k"); });
  await show("pipeline", () => redis.pipeline().set("p", "1").incr("p").get("p").exec());
  await show("quit", () => redis.quit());
  process.exit(0);
});
redis.on("error", (e) => console.log("error", e.message));
