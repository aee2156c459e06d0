#!/usr/bin/env node
import '../dist/sivtr.js';
