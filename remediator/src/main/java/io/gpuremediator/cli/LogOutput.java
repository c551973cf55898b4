package io.gpuremediator.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import io.gpuremediator.config.LogFormat;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.LoggerFactory;

/**
 * The form of {@code serve}'s log lines ({@code log_format}): logback.xml writes text on stderr; for {@code json} the
 * same appender gets logstash-logback-encoder's encoder, one JSON object a line with the events' key-value pairs as
 * fields. Fails when logging is not logback's, rather than log in a form nobody asked for.
 */
final class LogOutput {
  private static final String APPENDER = "STDERR";

  private LogOutput() {}

  static void use(LogFormat format) {
    if (format == LogFormat.TEXT) {
      return;
    }
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      throw new IllegalStateException("log_format: json needs logback, and logging is "
          + LoggerFactory.getILoggerFactory().getClass().getName());
    }
    Appender<ILoggingEvent> appender = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(APPENDER);
    if (!(appender instanceof OutputStreamAppender<ILoggingEvent> stream)) {
      throw new IllegalStateException("log_format: json: logback.xml has no appender " + APPENDER);
    }
    LogstashEncoder encoder = new LogstashEncoder();
    encoder.setContext(context);
    encoder.setTimeZone("UTC");
    encoder.start();
    stream.stop();
    stream.setEncoder(encoder);
    stream.start();
  }
}
