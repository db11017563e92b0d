package io.rdma.boot.autoconfigure.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.context.ApplicationContext;

/** A Prometheus registry with RDMA binders bound, and its scrapes parsed into series. */
final class PrometheusScrape {

    /** {@code name{labels} value}: a sample line of the text format. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$",
            Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    /** Every binder of {@code context}, which keeps them. */
    PrometheusScrape(ApplicationContext context) {
        context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
    }

    /** {@code binders}, which nothing keeps once bound. */
    PrometheusScrape(MeterBinder... binders) {
        for (MeterBinder binder : binders) {
            binder.bindTo(registry);
        }
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    String text() {
        return registry.scrape();
    }

    /** One sample: its family (the sample name) and labels. */
    record Series(String name, Map<String, String> labels) {
    }

    /** Every sample of a scrape, with its value. */
    Map<Series, Double> samples() {
        Map<Series, Double> samples = new LinkedHashMap<>();
        Matcher sample = SAMPLE.matcher(text());
        while (sample.find()) {
            Map<String, String> labels = new TreeMap<>();
            if (sample.group(2) != null) {
                Matcher label = LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            samples.put(new Series(sample.group(1), labels), Double.parseDouble(sample.group(3)));
        }
        return samples;
    }

    /** The value of the one sample of {@code name} whose labels include {@code labels}. */
    double value(String name, Map<String, String> labels) {
        return samples().entrySet().stream()
                .filter(s -> s.getKey().name().equals(name) && s.getKey().labels().entrySet().containsAll(labels.entrySet()))
                .map(Map.Entry::getValue).reduce((a, b) -> {
                    throw new IllegalStateException("more than one sample of " + name + labels);
                }).orElseThrow(() -> new IllegalStateException("no sample of " + name + labels + " in "
                        + new TreeSet<>(samples().keySet().stream().map(Series::name).toList())));
    }
}
