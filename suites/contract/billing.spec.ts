/**
 * Generated contract checks for every operation of the billing area of the OpenAPI document
 * (src/generate/contract.ts: positive, auth, unknown id, negative data, use after delete).
 */
import { defineContractChecks } from '../../src/generate/contract.ts';

await defineContractChecks('billing');
