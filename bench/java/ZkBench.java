/**
 * The Java side of the zookeeper-ts benchmark. One scenario per invocation:
 *
 *   java ZkBench raw     server=H:P base=/path op=getData|setData|createDelete window=N sessions=S
 *   java ZkBench curator server=H:P path=/lock clients=N
 *
 * plus warmupMs=, durationMs=, rounds=, seed= for both. Prints one JSON object on stdout
 * ({"rounds":[{ops,seconds,throughput,p50,p99,p999,perClient?}],"total":n,"errors":n}, total
 * counting the warm-up too); exits 1 on failure
 * with the reason on stderr.
 */
public final class ZkBench {
  private ZkBench() {}

  public static void main(String[] argv) {
    try {
      if (argv.length == 0) throw new IllegalArgumentException("usage: ZkBench raw|curator key=value...");
      Args args = new Args(argv, 1);
      String json;
      switch (argv[0]) {
        case "raw":
          json = new RawOps(args).run();
          break;
        case "curator":
          json = new CuratorMutex(args).run();
          break;
        default:
          throw new IllegalArgumentException("unknown scenario " + argv[0]);
      }
      System.out.println(json);
      System.out.flush();
      // Curator and ZooKeeper leave non-daemon threads behind on some paths: do not wait for them.
      System.exit(0);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
