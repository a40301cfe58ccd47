import { describe, expect, it } from 'vitest';
import * as analytics from './index.js';

describe('public API', () => {
  it('exports the documented functions from the package entry point', () => {
    const names = [
      'summarizeOrders',
      'summarizeCustomer',
      'CustomerDays',
      'netOrderAmount',
      'groupRfm',
      'fitBgNbd',
      'bgnbdLogLikelihood',
      'bgnbdProbabilityAlive',
      'bgnbdConditionalExpectedPurchases',
      'bgnbdExpectedPurchases',
      'fitGammaGamma',
      'gammaGammaLogLikelihood',
      'gammaGammaExpectedSpend',
      'bgnbdGammaGammaClv',
      'scoreCustomers',
      'lifecycleState',
      'isHoldout',
      'liftStatistics',
      'permutationInterval',
      'studentTCdf',
      'studentTQuantile',
      'fitFromOrderRows',
      'parseOrderCsv',
    ];
    for (const name of names)
      expect(typeof (analytics as Record<string, unknown>)[name], name).toBe('function');
  });
});
