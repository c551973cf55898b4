package io.gpuremediator.demo;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * Sends what the libraries in this JVM log (the fabric8 client, Vert.x) to a file beside the processes'
 * logs, so that the timeline is the only thing printed. On a slow, busy machine Vert.x warns that its
 * event loop was "blocked" while the JVM merely waited for a core: worth keeping, not worth a stack
 * trace in the middle of the story.
 */
final class LibraryLog {
  private LibraryLog() {}

  static void to(Path file) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX,UTC} %-5level %logger{0} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("FILE");
    appender.setFile(file.toAbsolutePath().toString());
    appender.setAppend(true);
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
  }
}
