package io.gpuremediator.simapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import org.junit.jupiter.api.Test;

/** The Job controller's pod failure policy: rules in order, the first matching decides; exit 0 never matches. */
class PodFailurePoliciesTest {
  private static Job job(String operator, Integer... values) {
    return new JobBuilder().withNewSpec().withNewPodFailurePolicy().addNewRule().withAction("Ignore")
        .addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
        .addNewRule().withAction("FailJob").withNewOnExitCodes().withOperator(operator).withValues(values).endOnExitCodes()
        .endRule().endPodFailurePolicy().endSpec().build();
  }

  @Test
  void aFailJobRuleMatchingTheExitFailsTheJobWithTheControllersMessage() {
    assertThat(PodFailurePolicies.failJob(job("NotIn", 0, 128), "sweep", "gpu-remediator", "gpu-sweep-1-abcde", 205))
        .hasValue("Container sweep for pod gpu-remediator/gpu-sweep-1-abcde failed with exit code 205 matching FailJob"
            + " rule at index 1");
    assertThat(PodFailurePolicies.failJob(job("In", 42), "sweep", "ns", "p", 42)).isPresent();
  }

  @Test
  void anExitNoRuleMatchesIsCountedAsWithoutAPolicy() {
    assertThat(PodFailurePolicies.failJob(job("NotIn", 0, 128), "sweep", "ns", "p", 128)).isEmpty();
    assertThat(PodFailurePolicies.failJob(job("In", 42), "sweep", "ns", "p", 1)).isEmpty();
    assertThat(PodFailurePolicies.failJob(job("NotIn", 0), "sweep", "ns", "p", 0)).isEmpty();
    assertThat(PodFailurePolicies.failJob(new JobBuilder().withNewSpec().endSpec().build(), "sweep", "ns", "p", 1)).isEmpty();
  }
}
