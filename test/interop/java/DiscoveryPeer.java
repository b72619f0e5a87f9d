// Curator's service discovery (curator-x-discovery) and GroupMember, driven over stdin/stdout for
// the TypeScript interop tests.
//
// Usage: java DiscoveryPeer <connectString> <basePath>
// The ServiceDiscovery uses Curator's default serializer (JsonInstanceSerializer, payload class
// Object: a JSON object payload is read as a Map). Line protocol as LockPeer's: `<id> <command>`
// in, one `<id> <reply>` out; JSON replies are one line.
//   (on start)                          -> ready
//   <id> register <name> <id> <port> <payload JSON> -> <id> registered
//   <id> update <id> <payload JSON>     -> <id> updated
//   <id> unregister <id>                -> <id> unregistered
//   <id> names                          -> <id> names <JSON array>
//   <id> instances <name>               -> <id> instances <JSON array of instances>
//   <id> cache <name>                   -> <id> cache <JSON array> (a ServiceCache, started once)
//   <id> provider <name>                -> <id> provider <JSON instance id or null> (round robin)
//   <id> join <path> <member id> <data> -> <id> joined (a GroupMember, started)
//   <id> members                        -> <id> members <JSON object: id -> data as UTF-8>
//   <id> setdata <data>                 -> <id> set
//   <id> leave                          -> <id> left (the GroupMember closed)
//   <id> quit                           -> <id> bye
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;

public final class DiscoveryPeer {
  private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static final ObjectMapper json = new ObjectMapper();
  private static final Map<String, ServiceInstance<Object>> mine = new HashMap<>();
  private static final Map<String, ServiceCache<Object>> caches = new HashMap<>();
  private static final Map<String, ServiceProvider<Object>> providers = new HashMap<>();
  private static GroupMember member;

  public static void main(String[] args) throws Exception {
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(args[0], 10_000, 10_000, new RetryNTimes(10, 200));
    client.start();
    client.blockUntilConnected();
    ServiceDiscovery<Object> discovery =
        ServiceDiscoveryBuilder.builder(Object.class).client(client).basePath(args[1]).build();
    discovery.start();
    out.println("ready");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.split(" ", 2);
      String id = words[0];
      String command = words.length > 1 ? words[1] : "";
      try {
        String reply = run(client, discovery, command);
        out.println(id + " " + reply);
        if (reply.equals("bye")) break;
      } catch (Exception error) {
        out.println(id + " error " + String.valueOf(error).replace('\n', ' '));
      }
    }
    if (member != null) member.close();
    for (ServiceProvider<Object> provider : providers.values()) provider.close();
    for (ServiceCache<Object> cache : caches.values()) cache.close();
    discovery.close();
    client.close();
  }

  private static String run(CuratorFramework client, ServiceDiscovery<Object> discovery, String line)
      throws Exception {
    String[] words = line.split(" ", 2);
    String rest = words.length > 1 ? words[1] : "";
    switch (words[0]) {
      case "register": {
        String[] parts = rest.split(" ", 4);
        ServiceInstance<Object> instance =
            ServiceInstance.builder()
                .name(parts[0])
                .id(parts[1])
                .address("127.0.0.1")
                .port(Integer.parseInt(parts[2]))
                .payload(json.readValue(parts[3], Object.class))
                .build();
        discovery.registerService(instance);
        mine.put(parts[1], instance);
        return "registered";
      }
      case "update": {
        String[] parts = rest.split(" ", 2);
        ServiceInstance<Object> old = mine.get(parts[0]);
        ServiceInstance<Object> instance =
            ServiceInstance.builder()
                .name(old.getName())
                .id(old.getId())
                .address(old.getAddress())
                .port(old.getPort())
                .registrationTimeUTC(old.getRegistrationTimeUTC())
                .payload(json.readValue(parts[1], Object.class))
                .build();
        discovery.updateService(instance);
        mine.put(parts[0], instance);
        return "updated";
      }
      case "unregister":
        discovery.unregisterService(mine.remove(rest));
        return "unregistered";
      case "names":
        return "names " + json.writeValueAsString(discovery.queryForNames());
      case "instances":
        return "instances " + describe(discovery.queryForInstances(rest));
      case "cache": {
        ServiceCache<Object> cache = caches.get(rest);
        if (cache == null) {
          cache = discovery.serviceCacheBuilder().name(rest).build();
          cache.start();
          caches.put(rest, cache);
        }
        return "cache " + describe(cache.getInstances());
      }
      case "provider": {
        ServiceProvider<Object> provider = providers.get(rest);
        if (provider == null) {
          provider = discovery.serviceProviderBuilder().serviceName(rest).build();
          provider.start();
          providers.put(rest, provider);
        }
        ServiceInstance<Object> picked = provider.getInstance();
        return "provider " + json.writeValueAsString(picked == null ? null : picked.getId());
      }
      case "join": {
        String[] parts = rest.split(" ", 3);
        member =
            new GroupMember(client, parts[0], parts[1], parts[2].getBytes(StandardCharsets.UTF_8));
        member.start();
        return "joined";
      }
      case "members": {
        Map<String, String> members = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> entry : member.getCurrentMembers().entrySet()) {
          members.put(entry.getKey(), new String(entry.getValue(), StandardCharsets.UTF_8));
        }
        return "members " + json.writeValueAsString(members);
      }
      case "setdata":
        member.setThisData(rest.getBytes(StandardCharsets.UTF_8));
        return "set";
      case "leave":
        member.close();
        member = null;
        return "left";
      case "quit":
        return "bye";
      default:
        throw new IllegalArgumentException("unknown command " + line);
    }
  }

  /** The instances as a JSON array of the fields the tests compare. */
  private static String describe(Collection<ServiceInstance<Object>> instances) throws Exception {
    List<Map<String, Object>> list = new ArrayList<>();
    for (ServiceInstance<Object> instance : instances) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("name", instance.getName());
      fields.put("id", instance.getId());
      fields.put("address", instance.getAddress());
      fields.put("port", instance.getPort());
      fields.put("payload", instance.getPayload());
      fields.put("enabled", instance.isEnabled());
      list.add(fields);
    }
    return json.writeValueAsString(list);
  }
}
