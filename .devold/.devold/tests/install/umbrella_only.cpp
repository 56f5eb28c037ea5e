// Includes the umbrella header and nothing else: what a user's file pays to see tilegrid.
#include <tilegrid/tilegrid.h>
