// A Curator lock contender driven over stdin/stdout, for the TypeScript interop tests.
//
// Usage: java LockPeer <connectString> <lockPath> <mutex | revocable | read | write | semaphore:N
//                                                  | latch:ID | selector:ID>
// `revocable` is a mutex made revocable (makeRevocable): on a revocation request it releases.
// `latch:ID` is a LeaderLatch with that id: acquire = start and await leadership, release = close.
// `selector:ID` is a LeaderSelector with that id: acquire = start and await takeLeadership,
// release = return from takeLeadership (stepping down) and close.
//
// Line protocol: each command line starts with a request id chosen by the caller, and gets exactly
// one reply line starting with the same id. Lock commands are answered in order; the others at
// once, even while an acquire is waiting.
//   (on start)          -> ready                        (no id)
//   <id> acquire        -> <id> acquired <node path>    (waits as long as it takes)
//   <id> acquire <ms>   -> <id> acquired <node path> | <id> timeout
//   <id> release        -> <id> released
//   <id> participants   -> <id> participants <path> ... (Curator's own queue order)
//   <id> protected <name> -> <id> protected true|false  (Curator's ProtectedUtils.isProtectedZNode)
//   <id> revoke <node>  -> <id> revoke sent              (Curator's Revoker.attemptRevoke)
//   <id> revoked        -> <id> revoked true|false       (revocable: a request came and was obeyed)
//   <id> leading        -> <id> leading true|false       (latch, selector: hasLeadership)
//   <id> quit           -> <id> bye, then the session is closed and the process exits (also on EOF)
// Any failure        -> <id> error <message>
//
// Lock operations run on one worker thread: Curator's mutexes belong to the thread that acquired
// them, and the main thread must stay free to answer the rest (and `quit`) while an acquire waits.
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZKPaths;

public final class LockPeer {
  private static void reply(String line) {
    PeerSupport.reply(line);
  }

  private static String describe(Throwable error) {
    return PeerSupport.describe(error);
  }
  /** The recipe under test, reduced to what the protocol needs. */
  private interface Recipe {
    /** The held node's path, or null when the wait timed out (ms < 0: no timeout). */
    String acquire(long ms) throws Exception;

    void release() throws Exception;

    Collection<String> participants() throws Exception;

    /** A yes/no state of the recipe (`revoked`, `leading`). */
    default boolean flag(String name) {
      throw new IllegalArgumentException(name + " does not apply to this recipe");
    }
  }

  /** InterProcessMutex.makeRevocable: a request releases the lock on the lock thread. */
  private static final class RevocableRecipe implements Recipe {
    private final MutexRecipe mutex;
    private volatile boolean revoked;

    RevocableRecipe(CuratorFramework client, String path, ExecutorService worker) {
      InterProcessMutex lock = new InterProcessMutex(client, path);
      mutex = new MutexRecipe(lock);
      lock.makeRevocable(
          forLock ->
              worker.execute(
                  () -> {
                    try {
                      if (forLock.isAcquiredInThisProcess()) {
                        // Before the release: whoever gets the lock next may ask at once.
                        revoked = true;
                        forLock.release();
                      }
                    } catch (Exception error) {
                      System.err.println("release on revocation failed: " + describe(error));
                    }
                  }));
    }

    @Override
    public String acquire(long ms) throws Exception {
      return mutex.acquire(ms);
    }

    @Override
    public void release() throws Exception {
      mutex.release();
    }

    @Override
    public Collection<String> participants() throws Exception {
      return mutex.participants();
    }

    @Override
    public boolean flag(String name) {
      if (name.equals("revoked")) return revoked;
      return Recipe.super.flag(name);
    }
  }

  /** LeaderLatch: a closed latch cannot start again, so each acquire after a release makes one. */
  private static final class LatchRecipe implements Recipe {
    private final CuratorFramework client;
    private final String path;
    private final String id;
    private volatile LeaderLatch latch;

    LatchRecipe(CuratorFramework client, String path, String id) {
      this.client = client;
      this.path = path;
      this.id = id;
      latch = new LeaderLatch(client, path, id);
    }

    @Override
    public synchronized String acquire(long ms) throws Exception {
      if (latch.getState() == LeaderLatch.State.CLOSED) latch = new LeaderLatch(client, path, id);
      if (latch.getState() == LeaderLatch.State.LATENT) latch.start();
      boolean leading = true;
      if (ms < 0) latch.await();
      else leading = latch.await(ms, TimeUnit.MILLISECONDS);
      return leading ? latch.getOurPath() : null;
    }

    @Override
    public synchronized void release() throws Exception {
      latch.close();
    }

    @Override
    public Collection<String> participants() throws Exception {
      List<String> ids = new ArrayList<>();
      for (Participant participant : latch.getParticipants()) ids.add(participant.getId());
      return ids;
    }

    @Override
    public boolean flag(String name) {
      if (name.equals("leading")) return latch.hasLeadership();
      return Recipe.super.flag(name);
    }
  }

  /**
   * LeaderSelector: takeLeadership signals that it leads, then blocks until `release`. A closed
   * selector cannot start again, so each acquire makes one.
   */
  private static final class SelectorRecipe implements Recipe {
    private final CuratorFramework client;
    private final String path;
    private final String id;
    private volatile LeaderSelector selector;
    private volatile CountDownLatch leading;
    private volatile CountDownLatch stepDown;
    /** The node of the running term, read on the thread that holds the mutex. */
    private volatile String held;

    SelectorRecipe(CuratorFramework client, String path, String id) {
      this.client = client;
      this.path = path;
      this.id = id;
    }

    @Override
    public synchronized String acquire(long ms) throws Exception {
      CountDownLatch nowLeading = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      leading = nowLeading;
      stepDown = release;
      LeaderSelector[] self = new LeaderSelector[1];
      LeaderSelector made =
          new LeaderSelector(
              client,
              path,
              new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework c) throws Exception {
                  held = lockPath(self[0]);
                  nowLeading.countDown();
                  release.await();
                }
              });
      self[0] = made;
      made.setId(id);
      selector = made;
      made.start();
      boolean led = true;
      if (ms < 0) nowLeading.await();
      else led = nowLeading.await(ms, TimeUnit.MILLISECONDS);
      if (!led) {
        made.close();
        return null;
      }
      return held;
    }

    // The selector's node is its InterProcessMutex's: reach it by reflection (both private; the
    // mutex answers only on the thread that holds it, the one running takeLeadership).
    private static String lockPath(LeaderSelector made) throws Exception {
      java.lang.reflect.Field field = LeaderSelector.class.getDeclaredField("mutex");
      field.setAccessible(true);
      Method method = InterProcessMutex.class.getDeclaredMethod("getLockPath");
      method.setAccessible(true);
      return (String) method.invoke(field.get(made));
    }

    @Override
    public synchronized void release() throws Exception {
      stepDown.countDown();
      selector.close();
    }

    @Override
    public Collection<String> participants() throws Exception {
      LeaderSelector current = selector;
      if (current == null) {
        // Never started: only read through (getParticipants reads the mutex's children).
        current =
            new LeaderSelector(
                client,
                path,
                new LeaderSelectorListenerAdapter() {
                  @Override
                  public void takeLeadership(CuratorFramework c) {}
                });
      }
      List<String> ids = new ArrayList<>();
      for (Participant participant : current.getParticipants()) ids.add(participant.getId());
      return ids;
    }

    @Override
    public boolean flag(String name) {
      if (name.equals("leading")) return selector != null && selector.hasLeadership();
      return Recipe.super.flag(name);
    }
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

  private static Recipe recipe(
      CuratorFramework client, String path, String kind, ExecutorService worker) {
    if (kind.equals("mutex")) return new MutexRecipe(new InterProcessMutex(client, path));
    if (kind.equals("revocable")) return new RevocableRecipe(client, path, worker);
    if (kind.startsWith("latch:"))
      return new LatchRecipe(client, path, kind.substring("latch:".length()));
    if (kind.startsWith("selector:"))
      return new SelectorRecipe(client, path, kind.substring("selector:".length()));
    if (kind.equals("read"))
      return new MutexRecipe(new InterProcessReadWriteLock(client, path).readLock());
    if (kind.equals("write"))
      return new MutexRecipe(new InterProcessReadWriteLock(client, path).writeLock());
    if (kind.startsWith("semaphore:"))
      return new SemaphoreRecipe(
          client, path, Integer.parseInt(kind.substring("semaphore:".length())));
    throw new IllegalArgumentException("unknown recipe " + kind);
  }

  private static void lockCommand(Recipe recipe, String id, String[] words) {
    try {
      if (words[1].equals("acquire")) {
        long ms = words.length > 2 ? Long.parseLong(words[2]) : -1;
        String node = recipe.acquire(ms);
        reply(id + (node == null ? " timeout" : " acquired " + node));
      } else {
        recipe.release();
        reply(id + " released");
      }
    } catch (Throwable error) {
      reply(id + " error " + describe(error));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println(
          "usage: LockPeer <connectString> <lockPath> <mutex|revocable|read|write|semaphore:N|latch:ID|selector:ID>");
      System.exit(2);
    }
    CuratorFramework client = PeerSupport.connected(args[0], 10_000, 5_000, new RetryNTimes(3, 100));
    ExecutorService worker = Executors.newSingleThreadExecutor();
    Recipe recipe = recipe(client, args[1], args[2], worker);
    reply("ready");
    String quitId =
        PeerSupport.serve(
            (id, words) -> {
              String command = words[1];
              switch (command) {
                case "participants" -> reply(
                    (id + " participants " + String.join(" ", recipe.participants())).trim());
                case "protected" -> reply(
                    id + " protected " + ProtectedUtils.isProtectedZNode(words[2]));
                case "revoke" -> {
                  Revoker.attemptRevoke(client, words[2]);
                  reply(id + " revoke sent");
                }
                case "revoked", "leading" -> reply(id + " " + command + " " + recipe.flag(command));
                case "acquire", "release" -> worker.execute(() -> lockCommand(recipe, id, words));
                default -> reply(id + " error unknown command " + command);
              }
            });
    reply(quitId + " bye");
    // Closing the session removes any node still held; the worker may be stuck in a wait.
    client.close();
    System.exit(0);
  }
}
