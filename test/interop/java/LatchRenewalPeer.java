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
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.retry.RetryForever;

public final class LatchRenewalPeer {
  private static final PrintStream out =
      new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static final List<String> history = new ArrayList<>();

  private static synchronized void reply(String line) {
    out.println(line);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: LatchRenewalPeer <connectString> <latchPath> <id> <sessionMs>");
      System.exit(2);
    }
    int sessionMs = Integer.parseInt(args[3]);
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(args[0])
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.max(1_000, sessionMs / 2))
            .retryPolicy(new RetryForever(100))
            .build();
    client.start();
    if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
      reply("error could not connect to " + args[0]);
      System.exit(1);
    }
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

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String quitId = "-";
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split("\\s+");
      if (words.length < 2) {
        reply((words[0].isEmpty() ? "-" : words[0]) + " error no command");
        continue;
      }
      String id = words[0];
      try {
        switch (words[1]) {
          case "leading" -> reply(id + " leading " + latch.hasLeadership());
          case "session" -> reply(
              id
                  + " session "
                  + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
          case "history" -> {
            synchronized (history) {
              reply((id + " history " + String.join(" ", history)).trim());
            }
          }
          case "quit" -> quitId = id;
          default -> reply(id + " error unknown command " + words[1]);
        }
      } catch (Throwable error) {
        reply(id + " error " + error.getClass().getSimpleName() + ": " + error.getMessage());
      }
      if (!quitId.equals("-")) break;
    }
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
