package io.gpuremediator.outbound.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Text that reaches Slack is shown as written: a label's {@code <!channel>}, a {@code <https://...|text>} link or an
 * {@code &} entity is escaped as Slack's formatting reference asks, so an alert's labels page nobody and link nowhere.
 */
class SlackTextTest {
  @Test
  void aLabelsControlSequencesAreEscapedForSlack() {
    assertThat(WebhookNotifier.slackEscaped("gpu-node-1 quarantined: rack <!channel> <https://evil.example|docs> & co"))
        .isEqualTo("gpu-node-1 quarantined: rack &lt;!channel&gt; &lt;https://evil.example|docs&gt; &amp; co");
    assertThat(WebhookNotifier.slackEscaped("&lt;")).as("escaped once more, shown as typed").isEqualTo("&amp;lt;");
  }
}
