package io.gpuremediator.http;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Parses RFC 3339 timestamps as Alertmanager writes them ({@code 2026-11-22T10:00:00.123456789Z},
 * {@code ...+01:00}). The common shapes are parsed by hand, several times faster than
 * {@link OffsetDateTime#parse}; anything else falls back to it, so nothing valid is refused.
 */
final class Rfc3339 {
  private Rfc3339() {}

  /** The instant, or empty when the text is not an RFC 3339 timestamp. */
  static Optional<Instant> parse(String s) {
    Instant fast = fast(s);
    if (fast != null) {
      return Optional.of(fast);
    }
    // RFC 3339's year has four digits, and every digit is ASCII: Java's own parser takes "+999999999-..." (a time whose
    // arithmetic overflows after acting) and the fast path's fraction must not take another script's digits.
    if (s.length() < 5 || s.charAt(4) != '-' || !s.chars().allMatch(c -> c < 128)) {
      return Optional.empty();
    }
    try {
      return Optional.of(OffsetDateTime.parse(s).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static Instant fast(String s) {
    int n = s.length();
    if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59) {
      return null;
    }
    int i = 19;
    long nanos = 0;
    if (i < n && s.charAt(i) == '.') {
      int start = ++i;
      while (i < n && isAsciiDigit(s.charAt(i)) && i - start < 9) {
        nanos = nanos * 10 + (s.charAt(i++) - '0');
      }
      if (i == start || (i < n && Character.isDigit(s.charAt(i)))) {
        return null;
      }
      for (int k = i - start; k < 9; k++) {
        nanos *= 10;
      }
    }
    int offsetSeconds;
    if (i == n - 1 && (s.charAt(i) == 'Z' || s.charAt(i) == 'z')) {
      offsetSeconds = 0;
    } else if (i == n - 6 && (s.charAt(i) == '+' || s.charAt(i) == '-') && s.charAt(i + 3) == ':') {
      int oh = digits(s, i + 1, 2);
      int om = digits(s, i + 4, 2);
      if (oh < 0 || oh > 23 || om < 0 || om > 59) {
        return null;
      }
      offsetSeconds = (s.charAt(i) == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    } else {
      return null;
    }
    if (day > YearMonth.of(year, month).lengthOfMonth()) {
      return null;
    }
    long epochDay = LocalDate.of(year, month, day).toEpochDay();
    long epochSecond = epochDay * 86_400 + hour * 3600L + minute * 60L + second - offsetSeconds;
    return Instant.ofEpochSecond(epochSecond, nanos);
  }

  private static int digits(String s, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
