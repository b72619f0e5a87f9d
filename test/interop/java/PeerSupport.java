// What the Java peers share, compiled beside each of them: whole reply lines on stdout, a Curator
// client connected before `ready`, and the two line protocols: the one-command peers' (`ready`,
// then `go` on stdin runs the command; see RecipePeer.java) and the tagged one of the long-lived
// peers (`<id> <command>` lines, each answered by a line starting with its id; see LockPeer.java).
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

final class PeerSupport {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

  private PeerSupport() {}

  /** Prints one line, whole even when several threads reply at once. */
  static synchronized void reply(String line) {
    OUT.println(line);
  }

  /** `SimpleName: message`, on one line. */
  static String describe(Throwable error) {
    String message = error.getMessage();
    return (error.getClass().getSimpleName() + (message == null ? "" : ": " + message))
        .replace('\n', ' ');
  }

  /** A started client, connected within 10 s; otherwise `error could not connect`, exit 1. */
  static CuratorFramework connected(
      String connectString, int sessionMs, int connectionMs, RetryPolicy retry)
      throws InterruptedException {
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(connectionMs)
            .retryPolicy(retry)
            .build();
    client.start();
    if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
      reply("error could not connect to " + connectString);
      System.exit(1);
    }
    return client;
  }

  /** The command of a one-command peer: `rest` are the arguments after the path. */
  interface Command {
    void run(CuratorFramework client, String command, String path, String[] rest)
        throws Exception;
  }

  /**
   * The main of a one-command peer, `<connectString> <command> <path> [arguments]`: connects,
   * prints `ready`, runs `command` once a line (`go`) comes on stdin, prints `error <why>` and
   * exits 1 if it fails.
   */
  static void runOnce(String[] args, Command command) throws Exception {
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(args[0], 10_000, 10_000, new RetryNTimes(100, 50));
    client.start();
    try {
      client.blockUntilConnected(30, TimeUnit.SECONDS);
      reply("ready");
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      command.run(client, args[1], args[2], Arrays.copyOfRange(args, 3, args.length));
    } catch (Exception e) {
      reply("error " + e);
      System.exit(1);
    } finally {
      client.close();
    }
  }

  /** The `i`th argument after the path, or null. */
  static String arg(String[] rest, int i) {
    return rest.length > i ? rest[i] : null;
  }

  /** Answers one tagged command (`words[1]`, arguments after it); `quit` never comes here. */
  interface Handler {
    void handle(String id, String[] words) throws Throwable;
  }

  /**
   * Reads `<id> <command> ...` lines until `<id> quit` or the end of stdin, handing each other
   * command to `handler` (a failure is replied as `<id> error <why>`). Returns quit's id (`-` at
   * the end of stdin), for the caller's `<id> bye` once it has cleaned up.
   */
  static String serve(Handler handler) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split("\\s+");
      if (words.length < 2) {
        reply((words[0].isEmpty() ? "-" : words[0]) + " error no command");
        continue;
      }
      if (words[1].equals("quit")) return words[0];
      try {
        handler.handle(words[0], words);
      } catch (Throwable error) {
        reply(words[0] + " error " + describe(error));
      }
    }
    return "-";
  }
}
