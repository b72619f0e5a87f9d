// Curator's counter and barrier recipes, one command per process, for the TypeScript interop tests.
//
// Usage: java RecipePeer <connectString> <command> <path> [argument]
//   atomic-increment <path> <n>   DistributedAtomicLong.increment() n times; prints `done <succeeded>`
//   atomic-increment-promoted <path> <n> <lockPath>
//                                 the same with one optimistic round and PromotedToLock on
//                                 lockPath (1000 rounds under the lock); prints
//                                 `done <succeeded> promoted <changes that took the lock>`
//   atomic-get <path>             prints `value <DistributedAtomicLong.get().postValue()>`
//   count-increment <path> <n>    SharedCount: n rounds of trySetCount(versioned, count + 1),
//                                 retrying each lost round; prints `done <n>`
//   count-get <path>              prints `value <SharedCount.getCount()>` (seed 0)
//   value-append <path> <n>       SharedValue (seed empty): n rounds of trySetValue(versioned,
//                                 value + "j"), retrying each lost round; prints `done <n>`
//   value-get <path>              prints `value <SharedValue.getValue() as UTF-8>` (seed empty)
//   double-barrier <path> <qty>   DistributedDoubleBarrier enter, then leave (30 s each);
//                                 prints `entered <bool>` and `left <bool>`
//   barrier-wait <path>           DistributedBarrier.waitOnBarrier(30 s); prints `released <bool>`
// Prints `ready` once connected, then reads one line from stdin (`go`) before the command runs,
// so that a test can start peers together. Any failure prints `error <message>` and exits 1.
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.SharedValue;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.RetryNTimes;

public final class RecipePeer {
  public static void main(String[] args) throws Exception {
    PeerSupport.runOnce(
        args,
        (client, command, path, rest) ->
            run(client, command, path, PeerSupport.arg(rest, 0), PeerSupport.arg(rest, 1)));
  }

  private static void run(
      CuratorFramework client, String command, String path, String arg, String arg2)
      throws Exception {
    switch (command) {
      case "atomic-increment" -> {
        // Many rounds: the TypeScript side increments the same node at the same time.
        DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(10_000, 1));
        int n = Integer.parseInt(arg), succeeded = 0;
        for (int i = 0; i < n; i++) {
          AtomicValue<Long> result = counter.increment();
          if (result.succeeded()) succeeded++;
        }
        System.out.println("done " + succeeded);
      }
      case "atomic-increment-promoted" -> {
        PromotedToLock promotion =
            PromotedToLock.builder()
                .lockPath(arg2)
                .retryPolicy(new RetryNTimes(1_000, 1))
                .timeout(30, TimeUnit.SECONDS)
                .build();
        DistributedAtomicLong counter =
            new DistributedAtomicLong(client, path, new RetryNTimes(0, 0), promotion);
        int n = Integer.parseInt(arg), succeeded = 0, promoted = 0;
        for (int i = 0; i < n; i++) {
          AtomicValue<Long> result = counter.increment();
          if (result.succeeded()) succeeded++;
          if (result.getStats().getPromotedLockTries() > 0) promoted++;
        }
        System.out.println("done " + succeeded + " promoted " + promoted);
      }
      case "atomic-get" -> {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(10, 10));
        System.out.println("value " + counter.get().postValue());
      }
      case "count-increment" -> {
        SharedCount count = new SharedCount(client, path, 0);
        count.start();
        int n = Integer.parseInt(arg);
        for (int i = 0; i < n; ) {
          VersionedValue<Integer> seen = count.getVersionedValue();
          if (count.trySetCount(seen, seen.getValue() + 1)) i++;
        }
        count.close();
        System.out.println("done " + n);
      }
      case "count-get" -> {
        SharedCount count = new SharedCount(client, path, 0);
        count.start();
        System.out.println("value " + count.getCount());
        count.close();
      }
      case "value-append" -> {
        SharedValue value = new SharedValue(client, path, new byte[0]);
        value.start();
        int n = Integer.parseInt(arg);
        for (int i = 0; i < n; ) {
          VersionedValue<byte[]> seen = value.getVersionedValue();
          byte[] next = java.util.Arrays.copyOf(seen.getValue(), seen.getValue().length + 1);
          next[next.length - 1] = 'j';
          if (value.trySetValue(seen, next)) i++;
        }
        value.close();
        System.out.println("done " + n);
      }
      case "value-get" -> {
        SharedValue value = new SharedValue(client, path, new byte[0]);
        value.start();
        System.out.println("value " + new String(value.getValue(), StandardCharsets.UTF_8));
        value.close();
      }
      case "double-barrier" -> {
        DistributedDoubleBarrier barrier =
            new DistributedDoubleBarrier(client, path, Integer.parseInt(arg));
        System.out.println("entered " + barrier.enter(30, TimeUnit.SECONDS));
        System.out.flush();
        System.out.println("left " + barrier.leave(30, TimeUnit.SECONDS));
      }
      case "barrier-wait" -> {
        DistributedBarrier barrier = new DistributedBarrier(client, path);
        System.out.println("released " + barrier.waitOnBarrier(30, TimeUnit.SECONDS));
      }
      default -> throw new IllegalArgumentException("unknown command " + command);
    }
    System.out.flush();
  }
}
