import assert from 'node:assert/strict';
import test from 'node:test';
import { greet, initials, shout } from './greet.mjs';

test('greet says Hello with a capital H', () => assert.equal(greet('Ada'), 'Hello Ada'));
test('shout shouts', () => assert.equal(shout('Ada'), 'ADA!'));
test('initials takes the first letters', () => assert.equal(initials('Ada Lovelace'), 'AL'));
