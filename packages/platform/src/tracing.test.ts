import { describe, expect, it } from 'vitest';
import { loadTracingConfig, tracingOn, traceHeaders } from './tracing.js';

describe('loadTracingConfig', () => {
  it('is off when no OTLP endpoint is set', () => {
    expect(loadTracingConfig({})).toEqual({ tracesUrl: null });
  });

  it('sends to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces', () => {
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
    });
  });

  it('takes the traces endpoint as a full URL, and OTEL_SDK_DISABLED wins', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.com/custom/traces',
    };
    expect(loadTracingConfig(env)).toEqual({ tracesUrl: 'https://otlp.example.com/custom/traces' });
    expect(loadTracingConfig({ ...env, OTEL_SDK_DISABLED: 'true' })).toEqual({ tracesUrl: null });
  });
});

describe('tracing off', () => {
  it('registers nothing and adds no headers', () => {
    expect(tracingOn()).toBe(false);
    expect(traceHeaders()).toEqual({});
  });
});
