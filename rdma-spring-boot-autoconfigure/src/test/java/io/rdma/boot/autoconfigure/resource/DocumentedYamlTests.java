package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.BinaryDataSizeConverter;
import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.discovery.RdmaDiscoveryAutoConfiguration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```yaml} block of README.md and of every Markdown file under docs/ is configuration
 * a service could use: it parses (SnakeYAML, through Boot's YAML loader), its {@code rdma} part
 * has no key that nothing binds ({@link KnownRdmaKeys}, as at startup) and binds to
 * {@link RdmaProperties}. A block is a whole configuration when it declares a device
 * ({@code rdma.devices.<name>}) and is not marked {@value #FRAGMENT}; a whole configuration is also
 * started, with the real auto-configuration, on the simulated fabric (whatever its
 * {@code rdma.provider} says), with its outbound connections pointed at 127.0.0.1, so a block
 * that declares a listener and a client of it connects to itself, and its completion counters'
 * external memory in a temporary directory. A block that shows part of a
 * configuration (a client without the completion queue declared a block earlier, say) says so
 * with a {@value #FRAGMENT} comment.
 *
 * <p>The files are found when the test runs, so Markdown added under docs/ is checked too.
 */
class DocumentedYamlTests {

    /** The comment that marks a block as part of a configuration, not to be started on its own. */
    static final String FRAGMENT = "# fragment";

    /** The repository root: tests run in the module's directory. */
    private static final Path REPOSITORY = Path.of("..");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*(\\S*)\\s*$");

    @TestFactory
    Stream<DynamicTest> everyDocumentedYamlBlockIsValidConfiguration(@TempDir Path files) throws IOException {
        List<YamlBlock> blocks = new ArrayList<>();
        for (Path document : documents()) {
            blocks.addAll(yamlBlocks(document));
        }
        assertThat(blocks).as("yaml blocks in README.md and docs/").isNotEmpty();
        return blocks.stream().map(block -> DynamicTest.dynamicTest(block.toString(), () -> check(block, files)));
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(REPOSITORY.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(REPOSITORY.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** The fenced blocks tagged yaml or yml, their indentation (inside a list item) removed. */
    static List<YamlBlock> yamlBlocks(Path document) throws IOException {
        List<String> lines = Files.readAllLines(document);
        List<YamlBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.size() && !FENCE.matcher(lines.get(i)).matches(); i++) {
                String line = lines.get(i);
                text.append(line.startsWith(open.group(1)) ? line.substring(open.group(1).length()) : line).append('\n');
            }
            if (open.group(2).equals("yaml") || open.group(2).equals("yml")) {
                blocks.add(new YamlBlock(REPOSITORY.relativize(document).toString(), start + 1, text.toString()));
            }
        }
        return blocks;
    }

    private static void check(YamlBlock block, Path files) {
        List<PropertySource<?>> sources;
        try {
            sources = new YamlPropertySourceLoader().load(block.toString(),
                    new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8)));
            KnownRdmaKeys.check(ConfigurationPropertySources.from(sources), DocumentedYamlTests.class.getClassLoader());
            ApplicationConversionService conversion = new ApplicationConversionService();
            conversion.addConverter(new BinaryDataSizeConverter());
            new Binder(ConfigurationPropertySources.from(sources), null, conversion).bind(RdmaProperties.PREFIX,
                    RdmaProperties.class);
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(block + " (its line 1 is the line after the fence): " + e.getMessage(), e);
        }
        if (block.isWholeConfiguration(sources)) {
            // with Spring Cloud's simple discovery client, for the configurations that connect to a service
            RdmaContextRunners.simulatedRunner().withConfiguration(AutoConfigurations.of(
                    RdmaDiscoveryAutoConfiguration.class, SimpleDiscoveryClientAutoConfiguration.class,
                    UtilAutoConfiguration.class)).withInitializer(context -> {
                sources.forEach(context.getEnvironment().getPropertySources()::addLast);
                context.getEnvironment().getPropertySources().addFirst(madeLocal(sources, files));
            }).run(context -> assertThat(context).as(block.toString()).hasNotFailed());
        }
    }

    /**
     * What a documented configuration names of the machine it was written for, made local: every
     * outbound connection's host becomes 127.0.0.1, every completion counter's external memory a
     * file under {@code files}.
     */
    private static MapPropertySource madeLocal(List<PropertySource<?>> sources, Path files) {
        Map<String, Object> local = new LinkedHashMap<>();
        for (PropertySource<?> source : sources) {
            for (String key : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
                if (key.matches("rdma\\.connections\\.outbound\\.[^.]+\\.host")) {
                    local.put(key, "127.0.0.1");
                } else if (key.matches("rdma\\.devices\\..+\\.completion-counters\\.[^.]+\\.external-memory")) {
                    local.put(key, files.resolve(local.size() + ".cntr").toString());
                }
            }
        }
        return new MapPropertySource("the documented configuration made local", local);
    }

    /** A fenced yaml block: where it starts (the fence's line) and its text. */
    record YamlBlock(String file, int line, String text) {

        boolean isWholeConfiguration(List<PropertySource<?>> sources) {
            return !text.contains(FRAGMENT) && sources.stream()
                    .flatMap(source -> Stream.of(((EnumerablePropertySource<?>) source).getPropertyNames()))
                    .anyMatch(key -> key.startsWith(RdmaProperties.PREFIX + ".devices."));
        }

        @Override
        public String toString() {
            return file + ":" + line;
        }
    }
}
