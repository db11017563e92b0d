package io.rdma.boot.autoconfigure;

import io.rdma.spring.convert.RdmaMessageConversion;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;

import tools.jackson.databind.json.JsonMapper;

/**
 * The message conversion with JSON through the application's {@link JsonMapper}: its modules and
 * features apply to RDMA payloads as to its HTTP bodies. Only loaded where Jackson is present.
 */
final class JsonConversion {

    private JsonConversion() {
    }

    static RdmaMessageConversion withApplicationMapper(BeanFactory beans) {
        JsonMapper mapper = beans.getBeanProvider(JsonMapper.class).getIfUnique();
        return mapper == null ? new RdmaMessageConversion()
                : new RdmaMessageConversion(RdmaMessageConversion.defaultConverter(new JacksonJsonMessageConverter(mapper)));
    }
}
