// A Curator LeaderLatch that loses its session now and then, for the renewal interop test.
//
// Usage: java LatchRenewalPeer <connectString> <latchPath> <id> <sessionTimeoutMs>
// The latch starts at once. A sampler thread reads LeaderLatch.hasLeadership() every millisecond
// and keeps each change with its wall-clock time, so the test can lay Curator's terms next to
// ours. Same line protocol as LockPeer (`ready`, then `<id> <command>` -> `<id> <reply>`):
//   <id> leading  -> <id> leading true|false
//   <id> session  -> <id> session <hex session id>   (the current ZooKeeper session)
//   <id> history  -> <id> history <ms>:<true|false> ... (every change of hasLeadership so far)
//   <id> quit     -> <id> bye, then the latch and the client are closed (also on EOF)
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.retry.RetryForever;

public final class LatchRenewalPeer {
  private static final List<String> history = new ArrayList<>();

  private static void reply(String line) {
    PeerSupport.reply(line);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: LatchRenewalPeer <connectString> <latchPath> <id> <sessionMs>");
      System.exit(2);
    }
    int sessionMs = Integer.parseInt(args[3]);
    CuratorFramework client =
        PeerSupport.connected(
            args[0], sessionMs, Math.max(1_000, sessionMs / 2), new RetryForever(100));
    LeaderLatch latch = new LeaderLatch(client, args[1], args[2]);
    latch.start();
    Thread sampler =
        new Thread(
            () -> {
              boolean last = false;
              while (!Thread.currentThread().isInterrupted()) {
                boolean now = latch.hasLeadership();
                if (now != last) {
                  synchronized (history) {
                    history.add(System.currentTimeMillis() + ":" + now);
                  }
                  last = now;
                }
                try {
                  Thread.sleep(1);
                } catch (InterruptedException stop) {
                  return;
                }
              }
            });
    sampler.setDaemon(true);
    sampler.start();
    reply("ready");

    String quitId =
        PeerSupport.serve(
            (id, words) -> {
              switch (words[1]) {
                case "leading" -> reply(id + " leading " + latch.hasLeadership());
                case "session" -> reply(
                    id
                        + " session "
                        + Long.toHexString(
                            client.getZookeeperClient().getZooKeeper().getSessionId()));
                case "history" -> {
                  synchronized (history) {
                    reply((id + " history " + String.join(" ", history)).trim());
                  }
                }
                default -> reply(id + " error unknown command " + words[1]);
              }
            });
    sampler.interrupt();
    reply(quitId + " bye");
    try {
      latch.close();
    } catch (Exception ignored) {
      // The session may be gone already; closing the client removes what is left.
    }
    client.close();
    System.exit(0);
  }
}
