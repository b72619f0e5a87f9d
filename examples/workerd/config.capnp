# workerd config for the two Worker examples, against a ZooKeeper on this machine.
#   npx esbuild examples/workerd/request-scoped.ts --bundle --format=esm --outfile=examples/workerd/dist/request-scoped.js
#   npx esbuild examples/workerd/durable-object.ts --bundle --format=esm --outfile=examples/workerd/dist/durable-object.js
#   npx workerd serve examples/workerd/config.capnp
#   curl localhost:8787/children ; curl 'localhost:8788/acquire?holder=a'
# test/runtimes/run.ts runs exactly this file, with its own ports and ZooKeeper address.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "request-scoped", worker = .requestScoped),
    (name = "durable-object", worker = .durableObject),
    # workerd refuses loopback and private addresses by default (Cloudflare always does); this
    # local-only override lets the Workers reach 127.0.0.1.
    (name = "internet", network = (allow = ["public", "local"])),
  ],
  sockets = [
    (name = "request-scoped", address = "127.0.0.1:8787", http = (), service = "request-scoped"),
    (name = "durable-object", address = "127.0.0.1:8788", http = (), service = "durable-object"),
  ],
);

const requestScoped :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "dist/request-scoped.js")],
  compatibilityDate = "2025-09-01",
  bindings = [(name = "ZK_CONNECT", text = "127.0.0.1:2181")],
);

const durableObject :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "dist/durable-object.js")],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "ZK_CONNECT", text = "127.0.0.1:2181"),
    (name = "LOCK_HOLDER", durableObjectNamespace = "LockHolder"),
  ],
  durableObjectNamespaces = [(className = "LockHolder", uniqueKey = "zookeeper-ts-lock-holder")],
  durableObjectStorage = (inMemory = void),
);
