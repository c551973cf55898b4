package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuremediator.node.NodeKeys;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The informer on our DeviceTaintRules (labelled managed by us): it tells each deletion, and its store is the cache a
 * look reads a rule from, so a fenced episode's looks cost the API server nothing. A rule the store lacks (the watch
 * not yet synced, just written, or not labelled ours) is read from the API server instead.
 */
final class RuleWatch implements AutoCloseable {
  private final SharedIndexInformer<GenericKubernetesResource> informer;

  private RuleWatch(SharedIndexInformer<GenericKubernetesResource> informer) {
    this.informer = informer;
  }

  static RuleWatch start(KubernetesClient client, ResourceDefinitionContext rules, Consumer<String> deleted) {
    SharedIndexInformer<GenericKubernetesResource> informer = client.genericKubernetesResources(rules)
        .withLabel(NodeKeys.MANAGED_LABEL, "true").runnableInformer(0);
    informer.exceptionHandler((started, t) -> true);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource rule) {}

      @Override
      public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource rule) {}

      @Override
      public void onDelete(GenericKubernetesResource rule, boolean finalStateUnknown) {
        deleted.accept(rule.getMetadata().getName());
      }
    });
    informer.start();
    return new RuleWatch(informer);
  }

  /** The rule as the watch last saw it; empty when the watch has not synced or has no rule of that name. */
  Optional<GenericKubernetesResource> cached(String name) {
    return informer.hasSynced() ? Optional.ofNullable(informer.getStore().getByKey(name)) : Optional.empty();
  }

  @Override
  public void close() {
    informer.stop();
  }
}
