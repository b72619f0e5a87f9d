// Curator's queues, one command per process, for the TypeScript interop tests.
//
// Usage: java QueuePeer <connectString> <command> <path> [argument]
//   simple-offer <path> <items>     SimpleDistributedQueue.offer each item; prints `put <n>`
//   simple-take <path> <n>          SimpleDistributedQueue.poll(30 s) n times; prints `took <item>`
//   queue-put <path> <items>        DistributedQueue (a producer, put in the foreground) put each
//                                   item; prints `put <n>`
//   queue-put-multi <path> <items>  the same with putMulti: one node holding every item
//   queue-consume <path> <n>        DistributedQueue with a consumer; prints `took <item>` for the
//                                   first n items it is given (30 s), then closes
// Items are comma-separated UTF-8 strings. Prints `ready` once connected, then reads one line
// from stdin (`go`) before the command runs. Any failure prints `error <message>` and exits 1.
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;

public final class QueuePeer {
  private static final QueueSerializer<String> UTF8 =
      new QueueSerializer<String>() {
        @Override
        public byte[] serialize(String item) {
          return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
          return new String(bytes, StandardCharsets.UTF_8);
        }
      };

  public static void main(String[] args) throws Exception {
    PeerSupport.runOnce(
        args, (client, command, path, rest) -> run(client, command, path, PeerSupport.arg(rest, 0)));
  }

  private static void run(CuratorFramework client, String command, String path, String arg)
      throws Exception {
    switch (command) {
      case "simple-offer" -> {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, path);
        String[] items = arg.split(",");
        for (String item : items) queue.offer(item.getBytes(StandardCharsets.UTF_8));
        System.out.println("put " + items.length);
      }
      case "simple-take" -> {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, path);
        for (int i = 0; i < Integer.parseInt(arg); i++) {
          byte[] bytes = queue.poll(30, TimeUnit.SECONDS);
          if (bytes == null) throw new IllegalStateException("nothing to take within 30 s");
          System.out.println("took " + new String(bytes, StandardCharsets.UTF_8));
          System.out.flush();
        }
      }
      case "queue-put", "queue-put-multi" -> {
        DistributedQueue<String> queue =
            QueueBuilder.builder(client, null, UTF8, path).putInBackground(false).buildQueue();
        queue.start();
        String[] items = arg.split(",");
        if (command.equals("queue-put")) {
          for (String item : items) queue.put(item);
        } else {
          Iterator<String> rest = Arrays.asList(items).iterator();
          queue.putMulti(() -> rest.hasNext() ? rest.next() : null);
        }
        queue.close();
        System.out.println("put " + items.length);
      }
      case "queue-consume" -> {
        int n = Integer.parseInt(arg);
        CountDownLatch done = new CountDownLatch(n);
        QueueConsumer<String> consumer =
            new QueueConsumer<String>() {
              @Override
              public void consumeMessage(String message) {
                System.out.println("took " + message);
                System.out.flush();
                done.countDown();
              }

              @Override
              public void stateChanged(CuratorFramework c, ConnectionState state) {}
            };
        DistributedQueue<String> queue =
            QueueBuilder.builder(client, consumer, UTF8, path).buildQueue();
        queue.start();
        boolean all = done.await(30, TimeUnit.SECONDS);
        queue.close();
        if (!all) throw new IllegalStateException("fewer than " + n + " items within 30 s");
      }
      default -> throw new IllegalArgumentException("unknown command " + command);
    }
  }
}
