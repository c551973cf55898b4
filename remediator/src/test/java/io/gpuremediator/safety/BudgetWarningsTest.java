package io.gpuremediator.safety;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.value.CountOrPercent;
import org.junit.jupiter.api.Test;

class BudgetWarningsTest {
  private static CountOrPercent budget(String text) {
    return CountOrPercent.parse(text).value();
  }

  @Test
  void aPercentageSaysFromWhichFleetSizeItAllowsANode() {
    assertThat(BudgetWarnings.offline(budget("10%"), budget("2"))).containsExactly("safety.max_unavailable 10% rounds down to 0"
        + " for fewer than 10 selected nodes: on such a fleet nothing is ever quarantined (an integer, such as 1, allows a node in"
        + " a small pool)");
    assertThat(BudgetWarnings.offline(budget("30%"), budget("25%"))).hasSize(2).last().asString()
        .startsWith("safety.max_draining 25% rounds down to 0 for fewer than 4 selected nodes");
    assertThat(BudgetWarnings.offline(budget("3"), budget("1"))).isEmpty();
  }

  @Test
  void aFleetWithNoSelectedNodeOrABudgetOfZeroIsSaid() {
    assertThat(BudgetWarnings.forFleet(0, 0)).singleElement().asString().startsWith("node_selector matches no node");
    assertThat(BudgetWarnings.forFleet(6, budget("10%").of(6))).singleElement().asString()
        .startsWith("safety.max_unavailable allows 0 of the 6 selected nodes");
    assertThat(BudgetWarnings.forFleet(10, budget("10%").of(10))).isEmpty();
  }
}
