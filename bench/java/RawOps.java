import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * getData, setData or create+delete on raw ZooKeeper sessions with the async API: `window`
 * operations in flight per session (1 = sequential), each completion issuing the next, exactly as
 * the TypeScript driver does. With several sessions this measures the server's write ceiling.
 * The runner has created `base` and `base/data`; create+delete uses `base/n-<session>-<slot>`.
 */
final class RawOps {
  private final Args args;
  private final String op;
  private final int window;
  private final String base;
  private final byte[] payload;
  private Rounds rounds;

  RawOps(Args args) {
    this.args = args;
    this.op = args.str("op");
    this.window = args.integer("window", 1);
    this.base = args.str("base");
    this.payload = new byte[args.integer("payload", 32)];
    new Random(args.number("seed", 1)).nextBytes(payload);
    if (!op.equals("getData") && !op.equals("setData") && !op.equals("createDelete")) {
      throw new IllegalArgumentException("op must be getData, setData or createDelete: " + op);
    }
  }

  String run() throws Exception {
    String server = args.str("server");
    int sessions = args.integer("sessions", 1);
    List<ZooKeeper> clients = new ArrayList<>();
    try {
      for (int s = 0; s < sessions; s++) clients.add(Sessions.open(server, 30_000));
      rounds = new Rounds(args, 1);
      CountDownLatch stopped = new CountDownLatch(sessions * window);
      for (int s = 0; s < sessions; s++) {
        for (int slot = 0; slot < window; slot++) {
          String own = base + "/n-" + s + "-" + slot;
          new Slot(clients.get(s), own, stopped).next();
        }
      }
      stopped.await();
      return rounds.toJson();
    } finally {
      for (ZooKeeper zk : clients) zk.close();
    }
  }

  /** One in-flight position: issues an operation, records it on completion, issues the next. */
  private final class Slot {
    private final ZooKeeper zk;
    private final String own;
    private final CountDownLatch stopped;
    private long seq;
    private long issued;

    Slot(ZooKeeper zk, String own, CountDownLatch stopped) {
      this.zk = zk;
      this.own = own;
      this.stopped = stopped;
    }

    void next() {
      if (rounds.finished()) {
        stopped.countDown();
        return;
      }
      issued = System.nanoTime();
      long n = seq++;
      switch (op) {
        case "getData":
          zk.getData(base + "/data", false, (rc, path, ctx, data, stat) -> done(rc), null);
          break;
        case "setData":
          zk.setData(base + "/data", payload, -1, (rc, path, ctx, stat) -> done(rc), null);
          break;
        default:
          if (n % 2 == 0) {
            zk.create(
                own,
                new byte[0],
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT,
                (rc, path, ctx, name) -> done(rc),
                null);
          } else {
            zk.delete(own, -1, (rc, path, ctx) -> done(rc), null);
          }
      }
    }

    private void done(int rc) {
      if (rc == 0) rounds.record(issued, 0);
      else rounds.error(KeeperException.create(KeeperException.Code.get(rc)));
      next();
    }
  }
}
