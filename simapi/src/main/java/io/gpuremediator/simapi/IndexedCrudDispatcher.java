package io.gpuremediator.simapi;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.CustomResourceDefinitionProcessor;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesResponseComposer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.HttpURLConnection;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/**
 * fabric8's CRUD dispatcher (kubernetes-server-mock 7.8.0) over an {@link IndexedStore}: its reads by name, its lists,
 * the lookups of its writes and its deletes find their objects through the store's indexes instead of a scan of every
 * object. Each answer is the mock's own, rebuilt from its code of that version (the list's body, its resourceVersion,
 * 404 for a missing name, a delete that only marks an object holding finalizers); watches and writes are the mock's.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
  private final IndexedStore store = new IndexedStore();
  private final ReadWriteLock lock;
  private final AtomicLong resourceVersion;
  private final CustomResourceDefinitionProcessor crds;

  IndexedCrudDispatcher() {
    super(Collections.emptyList());
    MockInternals.write(CrudDispatcher.class, this, "map", store);
    lock = (ReadWriteLock) MockInternals.read(KubernetesCrudDispatcher.class, this, "lock");
    resourceVersion = (AtomicLong) MockInternals.read(KubernetesCrudDispatcher.class, this, "resourceVersion");
    crds = (CustomResourceDefinitionProcessor) MockInternals.read(KubernetesCrudDispatcher.class, this, "crdProcessor");
  }

  /** The lock every write of the store holds. */
  ReadWriteLock lock() {
    return lock;
  }

  @Override
  public MockResponse handleGet(String path) {
    if (watch(path)) {
      return super.handleGet(path);
    }
    AttributeSet query = attributeExtractor.fromPath(path);
    return locked(lock.readLock(), () -> answer(query, path, matching(query), false));
  }

  @Override
  public MockResponse handleDelete(String path) {
    return locked(lock.writeLock(), () -> {
      AttributeSet query = attributeExtractor.fromPath(path);
      List<Map.Entry<AttributeSet, String>> found = matching(query);
      for (Map.Entry<AttributeSet, String> e : found) {
        delete(path, query, e.getKey(), e.getValue());
      }
      return answer(query, path, found, true);
    });
  }

  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
    List<Map.Entry<AttributeSet, String>> found = matching(attributes);
    return found.isEmpty() ? null : found.get(0);
  }

  /** The pods bound to a node, as a list of the kind the mock composes, at the store's resourceVersion. */
  String podsOn(String node) {
    return locked(lock.readLock(), () -> ((KubernetesResponseComposer) responseComposer).compose(store.podsOn(node),
        String.valueOf(resourceVersion.get())));
  }

  private List<Map.Entry<AttributeSet, String>> matching(AttributeSet query) {
    List<Map.Entry<AttributeSet, String>> found = new ArrayList<>();
    for (Map.Entry<AttributeSet, String> e : store.candidates(query)) {
      if (e.getKey().matches(query)) {
        found.add(e);
      }
    }
    return found;
  }

  /** What the mock's {@code handle} answers for what it found. */
  private MockResponse answer(AttributeSet query, String path, List<Map.Entry<AttributeSet, String>> found,
      boolean deleting) {
    MockResponse response = new MockResponse();
    if (query.containsKey(KubernetesAttributesExtractor.NAME)) {
      if (found.isEmpty()) {
        return response.setResponseCode(HttpURLConnection.HTTP_NOT_FOUND);
      }
      return response.setBody(found.get(0).getValue()).setResponseCode(HttpURLConnection.HTTP_OK);
    }
    String apiResources = found.isEmpty() && !deleting ? crds.getApiResources(path) : null;
    List<String> items = new ArrayList<>(found.size());
    found.forEach(e -> items.add(e.getValue()));
    return response.setBody(apiResources != null ? apiResources : ((KubernetesResponseComposer) responseComposer)
        .compose(items, String.valueOf(resourceVersion.get()))).setResponseCode(HttpURLConnection.HTTP_OK);
  }

  /** The mock's {@code processDelete}: removed, or only marked while finalizers are left. */
  private void delete(String path, AttributeSet query, AttributeSet key, String json) {
    GenericKubernetesResource resource = Serialization.unmarshal(json, GenericKubernetesResource.class);
    if (resource.getFinalizers().isEmpty()) {
      processEvent(path, query, key, null, null);
    } else if (!resource.isMarkedForDeletion()) {
      resource.getMetadata().setDeletionTimestamp(ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS)
          .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
      resource.getMetadata().setResourceVersion(String.valueOf(requestResourceVersion()));
      processEvent(path, query, key, resource, Serialization.asJson(resource));
    }
  }

  private static boolean watch(String path) {
    int q = path.indexOf('?');
    return q >= 0 && path.substring(q + 1).contains("watch=true");
  }

  private static <T> T locked(Lock lock, Supplier<T> body) {
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }
}
