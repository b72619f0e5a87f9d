import java.util.HashMap;
import java.util.Map;

/** key=value command-line arguments, with typed getters and defaults. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] argv, int from) {
    for (int i = from; i < argv.length; i++) {
      int eq = argv[i].indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("expected key=value, got " + argv[i]);
      values.put(argv[i].substring(0, eq), argv[i].substring(eq + 1));
    }
  }

  String str(String key) {
    String value = values.get(key);
    if (value == null) throw new IllegalArgumentException("missing argument " + key + "=...");
    return value;
  }

  String str(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  int integer(String key, int fallback) {
    String value = values.get(key);
    return value == null ? fallback : Integer.parseInt(value);
  }

  long number(String key, long fallback) {
    String value = values.get(key);
    return value == null ? fallback : Long.parseLong(value);
  }
}
