// A Curator lock contender driven over stdin/stdout, for the TypeScript interop tests.
//
// Usage: java LockPeer <connectString> <lockPath> <mutex | read | write | semaphore:N>
//
// Line protocol, one reply line per command, in order:
//   (on start)      -> ready
//   acquire         -> acquired <node path>        (waits as long as it takes)
//   acquire <ms>    -> acquired <node path> | timeout
//   release         -> released
//   participants    -> participants <path> ...     (Curator's own queue order)
//   protected <name> -> protected true|false       (Curator's ProtectedUtils.isProtectedZNode)
//   quit            -> bye, then the session is closed and the process exits (also on EOF)
// Any failure    -> error <message>
//
// Lock operations run on one worker thread: Curator's mutexes belong to the thread that acquired
// them, and the main thread must stay free to read `quit` while an acquire is waiting.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZKPaths;

public final class LockPeer {
  private static final PrintStream out =
      new PrintStream(System.out, true, StandardCharsets.UTF_8);

  private static synchronized void reply(String line) {
    out.println(line);
  }

  /** The recipe under test, reduced to what the protocol needs. */
  private interface Recipe {
    /** The held node's path, or null when the wait timed out (ms < 0: no timeout). */
    String acquire(long ms) throws Exception;

    void release() throws Exception;

    Collection<String> participants() throws Exception;
  }

  /** InterProcessMutex and the two sides of InterProcessReadWriteLock. */
  private static final class MutexRecipe implements Recipe {
    private final InterProcessMutex mutex;

    MutexRecipe(InterProcessMutex mutex) {
      this.mutex = mutex;
    }

    @Override
    public String acquire(long ms) throws Exception {
      boolean held = true;
      if (ms < 0) mutex.acquire();
      else held = mutex.acquire(ms, TimeUnit.MILLISECONDS);
      return held ? lockPath() : null;
    }

    // getLockPath() is protected and the read/write locks are Curator's own subclasses, so reach
    // it by reflection rather than by subclassing.
    private String lockPath() throws Exception {
      Method method = InterProcessMutex.class.getDeclaredMethod("getLockPath");
      method.setAccessible(true);
      return (String) method.invoke(mutex);
    }

    @Override
    public void release() throws Exception {
      mutex.release();
    }

    @Override
    public Collection<String> participants() throws Exception {
      return mutex.getParticipantNodes();
    }
  }

  private static final class SemaphoreRecipe implements Recipe {
    private final InterProcessSemaphoreV2 semaphore;
    private final String leasesPath;
    private Lease lease;

    SemaphoreRecipe(CuratorFramework client, String path, int maxLeases) {
      semaphore = new InterProcessSemaphoreV2(client, path, maxLeases);
      leasesPath = ZKPaths.makePath(path, "leases");
    }

    @Override
    public String acquire(long ms) throws Exception {
      if (lease != null) throw new IllegalStateException("already holding a lease");
      lease = ms < 0 ? semaphore.acquire() : semaphore.acquire(ms, TimeUnit.MILLISECONDS);
      return lease == null ? null : ZKPaths.makePath(leasesPath, lease.getNodeName());
    }

    @Override
    public void release() throws Exception {
      if (lease == null) throw new IllegalStateException("no lease held");
      semaphore.returnLease(lease);
      lease = null;
    }

    @Override
    public Collection<String> participants() throws Exception {
      return semaphore.getParticipantNodes();
    }
  }

  private static Recipe recipe(CuratorFramework client, String path, String kind) {
    if (kind.equals("mutex")) return new MutexRecipe(new InterProcessMutex(client, path));
    if (kind.equals("read"))
      return new MutexRecipe(new InterProcessReadWriteLock(client, path).readLock());
    if (kind.equals("write"))
      return new MutexRecipe(new InterProcessReadWriteLock(client, path).writeLock());
    if (kind.startsWith("semaphore:"))
      return new SemaphoreRecipe(
          client, path, Integer.parseInt(kind.substring("semaphore:".length())));
    throw new IllegalArgumentException("unknown recipe " + kind);
  }

  private static String describe(Throwable error) {
    String message = error.getMessage();
    return (error.getClass().getSimpleName() + (message == null ? "" : ": " + message))
        .replace('\n', ' ');
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: LockPeer <connectString> <lockPath> <mutex|read|write|semaphore:N>");
      System.exit(2);
    }
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(args[0])
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(5_000)
            .retryPolicy(new RetryNTimes(3, 100))
            .build();
    client.start();
    if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
      reply("error could not connect to " + args[0]);
      System.exit(1);
    }
    Recipe recipe = recipe(client, args[1], args[2]);
    ExecutorService worker = Executors.newSingleThreadExecutor();
    reply("ready");

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split("\\s+");
      String command = words[0];
      if (command.equals("quit")) break;
      worker.execute(
          () -> {
            try {
              switch (command) {
                case "acquire" -> {
                  long ms = words.length > 1 ? Long.parseLong(words[1]) : -1;
                  String node = recipe.acquire(ms);
                  reply(node == null ? "timeout" : "acquired " + node);
                }
                case "release" -> {
                  recipe.release();
                  reply("released");
                }
                case "participants" -> reply(
                    ("participants " + String.join(" ", recipe.participants())).trim());
                case "protected" -> reply(
                    "protected " + ProtectedUtils.isProtectedZNode(words[1]));
                default -> reply("error unknown command " + command);
              }
            } catch (Throwable error) {
              reply("error " + describe(error));
            }
          });
    }
    reply("bye");
    // Closing the session removes any node still held; the worker may be stuck in a wait.
    client.close();
    System.exit(0);
  }
}
