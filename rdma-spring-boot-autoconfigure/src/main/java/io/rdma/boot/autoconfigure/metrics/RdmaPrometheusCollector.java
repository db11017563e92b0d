package io.rdma.boot.autoconfigure.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;

/**
 * The RDMA binders' meters served to Prometheus in the Prometheus client's own model, in place of
 * Micrometer's Prometheus registry, which then leaves them out ({@link #serves}).
 *
 * <p>Why: a scrape of a large declaration (1,000 completion counters and 64 ports, about 2,800
 * series) took 3.4 ms through Micrometer's Prometheus registry, nearly all of it the registry
 * converting each meter again on every scrape (the name by its naming convention, the tags into
 * validated labels, each family's points re-collected from a concurrent map). Here names and labels
 * are converted once, when bound, and a scrape only reads values (MetricsScrapeBenchmark has the
 * figures). The output is the same as Micrometer's, family for family and label for label:
 * {@code RdmaPrometheusCollectorTests} compares the two scrapes.
 *
 * <p>The binders are bound to a registry of this collector's own, with the application's
 * {@link MeterFilter}s (common tags, renames and denials apply as to every other registry); each of
 * the binders' meters must be a counter, function counter or gauge, as the RDMA binders' are.
 */
final class RdmaPrometheusCollector implements MultiCollector {

    private final SimpleMeterRegistry source = new SimpleMeterRegistry();
    private final Set<String> meterNames = new HashSet<>();
    private final List<Family> families;

    RdmaPrometheusCollector(List<? extends MeterBinder> binders, List<MeterFilter> filters,
                            NamingConvention convention) {
        source.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                meterNames.add(id.getName()); // before any filter renames it: what Micrometer's registry must leave out
                return id;
            }
        });
        filters.forEach(source.config()::meterFilter);
        binders.forEach(binder -> binder.bindTo(source));
        Map<String, Family> byName = new LinkedHashMap<>();
        for (Meter meter : source.getMeters()) {
            Meter.Id id = meter.getId();
            String conventionName = convention.name(id.getName(), id.getType(), id.getBaseUnit());
            Kind kind = switch (id.getType()) {
                case COUNTER -> Kind.COUNTER;
                // as Micrometer's registry shows a gauge named *.info: the info type, always 1
                case GAUGE -> id.getName().endsWith(".info") ? Kind.INFO : Kind.GAUGE;
                default -> throw notCounterOrGauge(id);
            };
            byName.computeIfAbsent(PrometheusNaming.sanitizeMetricName(conventionName),
                            name -> new Family(name, kind, help(id)))
                    .series.add(new Series(labels(id, convention), reader(meter)));
        }
        families = List.copyOf(byName.values());
    }

    /** Whether {@code id} is one of the meters this collector serves, as the binders named it. */
    boolean serves(Meter.Id id) {
        return meterNames.contains(id.getName());
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> snapshots = new ArrayList<>(families.size());
        for (Family family : families) {
            snapshots.add(family.collect());
        }
        return new MetricSnapshots(snapshots);
    }

    @Override
    public List<String> getPrometheusNames() {
        return families.stream().map(Family::name).toList();
    }

    private static Labels labels(Meter.Id id, NamingConvention convention) {
        Labels.Builder labels = Labels.builder();
        for (Tag tag : id.getTagsAsIterable()) {
            labels.label(convention.tagKey(tag.getKey()), convention.tagValue(tag.getValue()));
        }
        return labels.build();
    }

    private static DoubleSupplier reader(Meter meter) {
        return switch (meter) {
            case FunctionCounter counter -> counter::count;
            case Counter counter -> counter::count;
            case Gauge gauge -> gauge::value;
            default -> throw notCounterOrGauge(meter.getId());
        };
    }

    private static String help(Meter.Id id) {
        String description = id.getDescription();
        return description == null ? " " : description;
    }

    private static IllegalStateException notCounterOrGauge(Meter.Id id) {
        return new IllegalStateException("An RDMA binder registered " + id + ", which is neither a counter nor a gauge: "
                + RdmaPrometheusCollector.class.getSimpleName() + " serves only those");
    }

    private enum Kind { COUNTER, GAUGE, INFO }

    private record Series(Labels labels, DoubleSupplier value) {
    }

    private record Family(String name, Kind kind, String help, List<Series> series) {

        Family(String name, Kind kind, String help) {
            this(name, kind, help, new ArrayList<>());
        }

        MetricSnapshot collect() {
            return switch (kind) {
                case COUNTER -> {
                    CounterSnapshot.Builder counter = CounterSnapshot.builder().name(name).help(help);
                    series.forEach(each -> counter.dataPoint(CounterDataPointSnapshot.builder()
                            .labels(each.labels()).value(each.value().getAsDouble()).build()));
                    yield counter.build();
                }
                case GAUGE -> {
                    GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
                    series.forEach(each -> gauge.dataPoint(GaugeDataPointSnapshot.builder()
                            .labels(each.labels()).value(each.value().getAsDouble()).build()));
                    yield gauge.build();
                }
                case INFO -> {
                    InfoSnapshot.Builder info = InfoSnapshot.builder().name(name).help(help);
                    series.forEach(each -> info.dataPoint(new InfoDataPointSnapshot(each.labels())));
                    yield info.build();
                }
            };
        }
    }
}
