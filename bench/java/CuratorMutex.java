import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

/**
 * `clients` Curator clients (one session each, one thread each) contending for one
 * InterProcessMutex with an empty critical section. Latency = acquire time; with several clients,
 * the handoff too (one holder calling release to the next one's acquire returning).
 */
final class CuratorMutex {
  private final Args args;

  CuratorMutex(Args args) {
    this.args = args;
  }

  String run() throws Exception {
    String server = args.str("server");
    String path = args.str("path");
    int n = args.integer("clients", 1);
    List<CuratorFramework> clients = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        CuratorFramework client =
            CuratorFrameworkFactory.newClient(server, 30_000, 15_000, new RetryNTimes(3, 100));
        client.start();
        if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
          throw new IllegalStateException("Curator client " + i + " did not connect to " + server);
        }
        clients.add(client);
      }
      Rounds rounds = new Rounds(args, n);
      // When the last holder called release; -1 once a grant has consumed it.
      AtomicLong releasedAt = new AtomicLong(-1);
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        InterProcessMutex mutex = new InterProcessMutex(clients.get(i), path);
        Thread thread =
            new Thread(
                () -> {
                  try {
                    while (!rounds.finished()) {
                      long started = System.nanoTime();
                      mutex.acquire();
                      long granted = rounds.record(started, index);
                      long released = releasedAt.getAndSet(-1);
                      if (n > 1 && released >= 0) rounds.recordHandoff(released, granted);
                      if (n > 1) releasedAt.set(System.nanoTime());
                      mutex.release();
                    }
                  } catch (Exception e) {
                    rounds.error(e);
                  }
                },
                "contender-" + i);
        threads.add(thread);
        thread.start();
      }
      for (Thread thread : threads) thread.join();
      return rounds.toJson();
    } finally {
      for (CuratorFramework client : clients) client.close();
    }
  }
}
