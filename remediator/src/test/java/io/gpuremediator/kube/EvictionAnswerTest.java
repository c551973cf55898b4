package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.PodInfo;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The Eviction API's answers, read as the API server documents them (closed-loop.md, "Eviction API responses"). */
class EvictionAnswerTest {
  private static final PodInfo POD = new PodInfo("ml-training", "trainer-0", "uid-1", "Running", false, false, false,
      Optional.of(600L));
  private static final String BUDGET_429 = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
      + "\"message\":\"Cannot evict pod as it would violate the pod's disruption budget.\",\"reason\":\"TooManyRequests\","
      + "\"details\":{\"causes\":[{\"reason\":\"DisruptionBudget\",\"message\":\"The disruption budget llm-pdb needs 2 healthy"
      + " pods and has 2 currently\"}]},\"code\":429}";

  @Test
  void a429WithADisruptionBudgetCauseIsABudgetBlockNamingTheBudget() throws ClusterException {
    Eviction e = Fabric8Workloads.answer(POD, 429, BUDGET_429, null);
    assertThat(e).isInstanceOfSatisfying(Eviction.BudgetBlocked.class, b -> {
      assertThat(b.budget()).contains("ml-training/llm-pdb");
      assertThat(b.message()).contains("needs 2 healthy pods");
      assertThat(b.retryAfter()).isEmpty();
    });
  }

  @Test
  void aBudgetStillBeingProcessedSaysWhenToRetry() throws ClusterException {
    String body = BUDGET_429.replace("\"code\":429}", "\"code\":429}").replace("]},", "],\"retryAfterSeconds\":10},");
    assertThat(Fabric8Workloads.answer(POD, 429, body, null)).isInstanceOfSatisfying(Eviction.BudgetBlocked.class,
        b -> assertThat(b.retryAfter()).contains(Duration.ofSeconds(10)));
  }

  @Test
  void a429WithoutTheCauseIsThrottling() throws ClusterException {
    String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Too many requests\","
        + "\"reason\":\"TooManyRequests\",\"code\":429}";
    assertThat(Fabric8Workloads.answer(POD, 429, body, "3")).isEqualTo(new Eviction.Throttled(Optional.of(Duration.ofSeconds(3))));
    assertThat(Fabric8Workloads.answer(POD, 429, "", null)).isEqualTo(new Eviction.Throttled(Optional.empty()));
  }

  @Test
  void a500ForSeveralBudgetsIsReportedNotRetried() throws ClusterException {
    String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"This pod has more than one"
        + " PodDisruptionBudget, which the eviction subresource does not support.\",\"reason\":\"InternalError\",\"code\":500}";
    assertThat(Fabric8Workloads.answer(POD, 500, body, null)).isInstanceOf(Eviction.SeveralBudgets.class);
  }

  @Test
  void anyOther5xxIsTransient() {
    assertThatThrownBy(() -> Fabric8Workloads.answer(POD, 503, "{\"message\":\"etcd timeout\"}", null))
        .isInstanceOfSatisfying(ClusterException.class, e -> assertThat(e.isTransient()).isTrue());
  }

  @Test
  void grantedGoneAndRefused() throws ClusterException {
    assertThat(Fabric8Workloads.answer(POD, 201, "{\"status\":\"Success\"}", null)).isInstanceOf(Eviction.Granted.class);
    assertThat(Fabric8Workloads.answer(POD, 200, "{\"status\":\"Success\"}", null)).isInstanceOf(Eviction.Granted.class);
    assertThat(Fabric8Workloads.answer(POD, 404, "{}", null)).isInstanceOf(Eviction.Gone.class);
    assertThat(Fabric8Workloads.answer(POD, 403, "{\"message\":\"forbidden\"}", null))
        .isEqualTo(new Eviction.Refused(403, "forbidden"));
  }
}
