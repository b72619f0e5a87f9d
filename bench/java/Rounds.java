import java.util.Arrays;
import java.util.Locale;

/**
 * One continuous run cut into a warm-up and measured rounds (the same model as bench/stats.ts):
 * an operation belongs to the round in which it completes.
 */
final class Rounds {
  private final long startNanos;
  private final long warmupNanos;
  private final long durationNanos;
  private final int rounds;
  private final int clients;
  private final double[][] latencies;
  private final int[] sizes;
  private final long[][] perClient;
  private final double[][] handoffs;
  private final int[] handoffSizes;
  private long errors;
  /** Completed operations over the whole run, warm-up included. */
  private long total;
  private String firstError;

  Rounds(Args args, int clients) {
    this.warmupNanos = args.number("warmupMs", 2000) * 1_000_000L;
    this.durationNanos = args.number("durationMs", 2000) * 1_000_000L;
    this.rounds = args.integer("rounds", 5);
    this.clients = clients;
    this.latencies = new double[rounds][1024];
    this.sizes = new int[rounds];
    this.perClient = new long[rounds][clients];
    this.handoffs = new double[rounds][1024];
    this.handoffSizes = new int[rounds];
    this.startNanos = System.nanoTime();
  }

  boolean finished() {
    return System.nanoTime() - startNanos >= warmupNanos + rounds * durationNanos;
  }

  /** An operation issued at startNanos completed now; returns now. */
  synchronized long record(long issuedNanos, int client) {
    long now = System.nanoTime();
    total++;
    int round = roundAt(now);
    if (round < 0) return now;
    if (sizes[round] == latencies[round].length) {
      latencies[round] = Arrays.copyOf(latencies[round], sizes[round] * 2);
    }
    latencies[round][sizes[round]++] = (now - issuedNanos) / 1e6;
    perClient[round][client]++;
    return now;
  }

  /** A lock handoff: released by one holder at releasedNanos, granted to the next at grantedNanos. */
  synchronized void recordHandoff(long releasedNanos, long grantedNanos) {
    int round = roundAt(grantedNanos);
    if (round < 0) return;
    if (handoffSizes[round] == handoffs[round].length) {
      handoffs[round] = Arrays.copyOf(handoffs[round], handoffSizes[round] * 2);
    }
    handoffs[round][handoffSizes[round]++] = (grantedNanos - releasedNanos) / 1e6;
  }

  /** The measured round `nanos` falls in, or -1 (warm-up or after the end). */
  private int roundAt(long nanos) {
    long measured = nanos - startNanos - warmupNanos;
    if (measured < 0) return -1;
    int round = (int) (measured / durationNanos);
    return round >= rounds ? -1 : round;
  }

  synchronized void error(Throwable cause) {
    errors++;
    if (firstError == null) firstError = String.valueOf(cause);
  }

  synchronized String toJson() {
    StringBuilder out = new StringBuilder("{\"rounds\":[");
    double seconds = durationNanos / 1e9;
    for (int r = 0; r < rounds; r++) {
      double[] sorted = Arrays.copyOf(latencies[r], sizes[r]);
      Arrays.sort(sorted);
      if (r > 0) out.append(',');
      out.append("{\"ops\":").append(sizes[r]);
      out.append(",\"seconds\":").append(num(seconds));
      out.append(",\"throughput\":").append(num(sizes[r] / seconds));
      out.append(",\"p50\":").append(num(percentile(sorted, 0.5)));
      out.append(",\"p99\":").append(num(percentile(sorted, 0.99)));
      out.append(",\"p999\":").append(num(percentile(sorted, 0.999)));
      if (clients > 1) {
        out.append(",\"perClient\":[");
        for (int c = 0; c < clients; c++) out.append(c > 0 ? "," : "").append(perClient[r][c]);
        out.append(']');
      }
      if (handoffSizes[r] > 0) {
        double[] hs = Arrays.copyOf(handoffs[r], handoffSizes[r]);
        Arrays.sort(hs);
        out.append(",\"handoff\":{\"p50\":").append(num(percentile(hs, 0.5)));
        out.append(",\"p99\":").append(num(percentile(hs, 0.99)));
        out.append(",\"p999\":").append(num(percentile(hs, 0.999))).append('}');
      }
      out.append('}');
    }
    out.append("],\"total\":").append(total);
    out.append(",\"errors\":").append(errors);
    if (firstError != null) out.append(",\"firstError\":").append(quote(firstError));
    return out.append('}').toString();
  }

  /** Nearest rank, as bench/stats.ts. */
  private static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) return Double.NaN;
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }

  private static String num(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6f", value) : "null";
  }

  static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }
}
