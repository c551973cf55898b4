package io.gpuremediator.simapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.Value;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mock's store (every object's attributes and JSON, in the order written, as its own map keeps them) with the
 * indexes of the API server's watch cache beside it: by resource, by resource and namespace, by resource and name, and
 * pods by {@code spec.nodeName}. A read narrows to one index's bucket and still applies the mock's own attribute match
 * to what it found, so it answers what a scan of the whole store answers; fabric8's mock scans every object of every
 * kind for each request, which at 100,000 nodes made every read and write cost the whole store.
 *
 * <p>Writes hold the mock's write lock and reads its read lock (as the mock's own code does); the map's methods are
 * synchronized besides, for the writes made outside the lock (a preload before any client connects).
 */
final class IndexedStore extends AbstractMap<AttributeSet, String> {
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final String PLURAL = "plural";
  private final Map<AttributeSet, String> all = new LinkedHashMap<>();
  private final Map<String, Map<AttributeSet, String>> buckets = new HashMap<>();
  /** Objects without a single plural: every read considers them (the mock stores none such for a typed path). */
  private final Map<AttributeSet, String> unindexed = new LinkedHashMap<>();

  /** What a query's match can only find: the entries of its narrowest bucket, in the order they were written. */
  synchronized List<Map.Entry<AttributeSet, String>> candidates(AttributeSet query) {
    Map<AttributeSet, String> bucket = bucketFor(query);
    List<Map.Entry<AttributeSet, String>> found = new ArrayList<>((bucket == null ? 0 : bucket.size()) + unindexed.size());
    if (bucket == all) {
      found.addAll(all.entrySet());
      return found;
    }
    if (bucket != null) {
      found.addAll(bucket.entrySet());
    }
    found.addAll(unindexed.entrySet());
    return found;
  }

  /** The JSON of the pods bound to {@code node}, in the order written. */
  synchronized List<String> podsOn(String node) {
    Map<AttributeSet, String> bucket = buckets.get("node\0" + node);
    return bucket == null ? List.of() : new ArrayList<>(bucket.values());
  }

  private Map<AttributeSet, String> bucketFor(AttributeSet query) {
    String plural = exact(query, PLURAL);
    if (plural == null) {
      return all;
    }
    String name = exact(query, "name");
    if (name == null) {
      name = exact(query, "metadata.name");
    }
    if (name != null) {
      return buckets.get("name\0" + plural + "\0" + name);
    }
    String namespace = exact(query, "namespace");
    if (namespace == null) {
      namespace = exact(query, "metadata.namespace");
    }
    return buckets.get(namespace != null ? "ns\0" + plural + "\0" + namespace : "kind\0" + plural);
  }

  /** The one value an attribute must equal, or null when it is absent, a set, a negation or the mock's wildcard. */
  private static String exact(AttributeSet set, String key) {
    Attribute a = set.getAttribute(key);
    if (a == null || a.getType() != AttributeType.WITH || a.getValues().size() != 1) {
      return null;
    }
    Value v = a.getValues().get(0);
    String s = v.toString();
    return s == null || s.equals("*") ? null : s;
  }

  private List<String> keysOf(AttributeSet key, String json) {
    String plural = exact(key, PLURAL);
    if (plural == null) {
      return List.of();
    }
    List<String> keys = new ArrayList<>(4);
    keys.add("kind\0" + plural);
    String namespace = exact(key, "namespace");
    if (namespace != null) {
      keys.add("ns\0" + plural + "\0" + namespace);
    }
    String name = exact(key, "name");
    if (name != null) {
      keys.add("name\0" + plural + "\0" + name);
    }
    if (plural.equals("pods")) {
      String node = nodeName(json);
      if (!node.isEmpty()) {
        keys.add("node\0" + node);
      }
    }
    return keys;
  }

  private static String nodeName(String pod) {
    try {
      return JSON.readTree(pod).path("spec").path("nodeName").asText("");
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public synchronized String put(AttributeSet key, String value) {
    String old = remove(key);
    all.put(key, value);
    List<String> keys = keysOf(key, value);
    if (keys.isEmpty()) {
      unindexed.put(key, value);
    }
    for (String k : keys) {
      buckets.computeIfAbsent(k, x -> new LinkedHashMap<>()).put(key, value);
    }
    return old;
  }

  @Override
  public synchronized String remove(Object key) {
    String old = all.remove(key);
    if (old == null) {
      return null;
    }
    AttributeSet set = (AttributeSet) key;
    unindexed.remove(set);
    for (String k : keysOf(set, old)) {
      Map<AttributeSet, String> bucket = buckets.get(k);
      if (bucket != null && bucket.remove(set) != null && bucket.isEmpty()) {
        buckets.remove(k);
      }
    }
    return old;
  }

  @Override
  public synchronized String get(Object key) {
    return all.get(key);
  }

  @Override
  public synchronized boolean containsKey(Object key) {
    return all.containsKey(key);
  }

  @Override
  public synchronized int size() {
    return all.size();
  }

  @Override
  public synchronized void clear() {
    all.clear();
    buckets.clear();
    unindexed.clear();
  }

  /**
   * A snapshot, in the order written: the mock iterates it under its lock (a watch's first events) and removes through
   * {@link #remove}, never through the view. A list, not a hashed set: an attribute set's hash is computed afresh each time.
   */
  @Override
  public synchronized Set<Map.Entry<AttributeSet, String>> entrySet() {
    List<Map.Entry<AttributeSet, String>> copy = new ArrayList<>(all.entrySet());
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<AttributeSet, String>> iterator() {
        return Collections.unmodifiableList(copy).iterator();
      }

      @Override
      public int size() {
        return copy.size();
      }
    };
  }

  @Override
  public synchronized Collection<String> values() {
    return List.copyOf(all.values());
  }
}
