// The frame of every page: the header (navigation, account) and the main column.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { SiteHeader } from './_components/site-header';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'perfjudge', template: '%s · perfjudge' },
  description: 'A judging platform for performance-tuning contests',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <SiteHeader />
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
