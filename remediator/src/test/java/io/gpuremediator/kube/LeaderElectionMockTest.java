package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** An instance that lost its Lease competes again: it leads once the Lease is free, instead of never again. */
class LeaderElectionMockTest {
  @Test
  void anInstanceThatLostItsLeaseLeadsAgainOnceTheLeaseIsFree() {
    try (EmulatedApiServer server = EmulatedApiServer.start(); KubernetesClient admin = server.client();
        LeaderElection election = new LeaderElection(server.client(), "gpu-remediator", "gpu-remediator", "a",
            Duration.ofSeconds(2))) {
      AtomicInteger led = new AtomicInteger();
      AtomicInteger lost = new AtomicInteger();
      election.start(led::incrementAndGet, lost::incrementAndGet);
      await().atMost(Duration.ofSeconds(20)).until(election::isLeader);

      // Another holder takes the Lease (as after a renewal deadline this instance missed) and never renews it.
      Lease lease = admin.leases().inNamespace("gpu-remediator").withName("gpu-remediator").get();
      lease.getSpec().setHolderIdentity("b");
      lease.getSpec().setRenewTime(ZonedDateTime.now());
      admin.leases().inNamespace("gpu-remediator").resource(lease).update();
      await().atMost(Duration.ofSeconds(20)).until(() -> lost.get() == 1);
      assertThat(election.isLeader()).isFalse();

      await().atMost(Duration.ofSeconds(20)).until(() -> led.get() == 2 && election.isLeader());
      assertThat(admin.leases().inNamespace("gpu-remediator").withName("gpu-remediator").get().getSpec().getHolderIdentity())
          .isEqualTo("a");
    }
  }
}
