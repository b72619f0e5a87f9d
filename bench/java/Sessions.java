import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Raw ZooKeeper sessions that are connected when returned. */
final class Sessions {
  private Sessions() {}

  static ZooKeeper open(String server, int sessionTimeoutMs) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            server,
            sessionTimeoutMs,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
            });
    if (!connected.await(15, TimeUnit.SECONDS)) {
      zk.close();
      throw new IllegalStateException("no session with " + server + " within 15 s");
    }
    return zk;
  }
}
